//! The `perft fuzz` report.

use serde::Serialize;

use super::style::Style;
use super::{Header, plural, thousands};
use crate::validate::bisect::{Bisection, Verdict};

/// The first disagreement `perft fuzz` found, bisected.
#[derive(Clone, Debug, Serialize)]
pub struct FuzzFailure {
    /// 1-based number of the position among those tried.
    pub index: usize,
    /// The hard case the position was built for (`playout`,
    /// `en_passant_pin`, `castling`, `promotion`, `checks`).
    pub motif: &'static str,
    /// The random position where the divides differed.
    pub root_fen: String,
    /// The bisection from that position: path, FEN, missing, extra, levels.
    pub bisection: Bisection,
    /// The smallest `perft compare` command that shows the difference: the
    /// root, the path as `--moves`, at the depth of the last level.
    pub reproduce: String,
}

/// Result of `perft fuzz`.
#[derive(Clone, Debug, Serialize)]
pub struct FuzzReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The engine command line.
    pub engine: String,
    /// `uci` or `perftree`.
    pub engine_kind: &'static str,
    /// Depth of each divide (plies).
    pub depth: u32,
    /// Seed of the position generator.
    pub seed: u64,
    /// Exact decimal string of `seed`.
    pub seed_str: String,
    /// Chess960 positions mixed in.
    pub chess960: bool,
    /// `--positions`.
    pub positions_requested: usize,
    /// `--time` in seconds (`null` = none).
    pub time_limit: Option<f64>,
    /// Positions divided on both sides.
    pub positions_tried: usize,
    /// Sum of our totals over the positions tried (leaf nodes).
    pub nodes: u128,
    /// Exact decimal string of `nodes`.
    pub nodes_str: String,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `positions_tried / seconds`.
    pub positions_per_second: f64,
    /// `agree`, `moves_differ`, `inconsistent` or `interrupted`.
    pub result: &'static str,
    /// The first difference, bisected (`null` when none).
    pub failure: Option<FuzzFailure>,
}

impl FuzzReport {
    /// Text rendering.
    pub fn to_text(&self, style: Style) -> String {
        let mut s = String::new();
        let tried = format!(
            "{} in {:.2} s ({:.1} positions/s), {} nodes",
            plural(self.positions_tried as u128, "position"),
            self.seconds,
            self.positions_per_second,
            thousands(self.nodes)
        );
        match &self.failure {
            None if self.result == "interrupted" => s.push_str(&format!(
                "{}: no difference in {tried} before Ctrl-C\n",
                style.note("INTERRUPTED")
            )),
            None => s.push_str(&format!(
                "{}: no difference in {tried} (depth {}, seed {})\n",
                style.good("AGREE"),
                self.depth,
                self.seed
            )),
            Some(f) => {
                let b = &f.bisection;
                let list = |v: &[String]| {
                    if v.is_empty() {
                        "(none)".to_string()
                    } else {
                        v.join(" ")
                    }
                };
                let what = match b.verdict {
                    Verdict::Inconsistent => "the engine's counts are inconsistent",
                    _ => "the move lists differ",
                };
                s.push_str(&format!(
                    "{} at position {} ({}): {what}\nroot      {}\npath      {}\nfen       {}\nmissing   {}\nextra     {}\n",
                    style.bad("DIFFERENCE"),
                    f.index,
                    f.motif,
                    f.root_fen,
                    if b.path.is_empty() {
                        "(the root)".to_string()
                    } else {
                        b.path.join(" ")
                    },
                    b.fen,
                    list(&b.missing),
                    list(&b.extra)
                ));
                if let Some(note) = &b.note {
                    s.push_str(&format!("note      {note}\n"));
                }
                s.push_str(&format!("reproduce {}\ntried     {tried}\n", f.reproduce));
            }
        }
        s
    }
}
