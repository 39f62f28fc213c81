//! The `perft compare` report.

use serde::Serialize;

use super::style::Style;
use super::{Header, thousands};
use crate::validate::bisect::Level;

/// Result of `perft compare`.
#[derive(Clone, Debug, Serialize)]
pub struct CompareReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The engine command line.
    pub engine: String,
    /// `uci` or `perftree`.
    pub engine_kind: &'static str,
    /// The root position (before `--moves`).
    pub root_fen: String,
    /// `--moves`, played from the root before bisecting.
    pub moves: Vec<String>,
    /// Requested depth (plies).
    pub depth: u32,
    /// Worker threads for our side.
    pub threads: usize,
    /// `agree`, `moves_differ`, `inconsistent`, or `interrupted`.
    pub result: &'static str,
    /// Moves from the root (after `--moves`) to the position found.
    pub path: Vec<String>,
    /// That position's FEN.
    pub fen: String,
    /// Legal moves there that the engine does not list.
    pub missing: Vec<String>,
    /// Moves the engine lists there that are not legal.
    pub extra: Vec<String>,
    /// For `inconsistent`: what contradicts what.
    pub note: Option<String>,
    /// Every divided level, root first.
    pub levels: Vec<Level>,
    /// `perft divide` command showing the position found.
    pub reproduce: Option<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl CompareReport {
    /// Text line for one level (printed as soon as it is known).
    pub fn level_text(level: &Level) -> String {
        let at = if level.path.is_empty() {
            "root".to_string()
        } else {
            format!("after {}", level.path.join(" "))
        };
        let mut s = format!(
            "depth {}  {at}: {} move{}, ours {}, engine {}",
            level.depth,
            level.moves,
            if level.moves == 1 { "" } else { "s" },
            thousands(level.ours),
            thousands(level.engine.into())
        );
        match level.differing.first() {
            Some(d) => s.push_str(&format!(
                "; {} differ, first {} (ours {}, engine {})\n",
                level.differing.len(),
                d.mv,
                thousands(d.ours),
                thousands(d.engine.into())
            )),
            None => s.push('\n'),
        }
        s
    }

    /// The verdict text (after the level lines).
    pub fn verdict_text(&self, style: Style) -> String {
        let list = |v: &[String]| {
            if v.is_empty() {
                "(none)".to_string()
            } else {
                v.join(" ")
            }
        };
        let path = if self.path.is_empty() {
            "(the root position)".to_string()
        } else {
            self.path.join(" ")
        };
        match self.result {
            "agree" => format!(
                "{}: the engine agrees at depth {} ({} nodes)\n",
                style.good("AGREE"),
                self.depth,
                thousands(self.levels.first().map_or(0, |l| l.ours))
            ),
            "interrupted" => format!(
                "{}: stopped before a verdict (partial: {} levels compared)\n",
                style.note("INTERRUPTED"),
                self.levels.len()
            ),
            _ => {
                let mut s = format!(
                    "{}\npath      {path}\nfen       {}\nmissing   {}\nextra     {}\n",
                    style.bad(if self.result == "moves_differ" {
                        "DIFFERENCE: the move lists differ"
                    } else {
                        "DIFFERENCE: the engine's counts are inconsistent"
                    }),
                    self.fen,
                    list(&self.missing),
                    list(&self.extra)
                );
                if let Some(note) = &self.note {
                    s.push_str(&format!("note      {note}\n"));
                }
                if let Some(cmd) = &self.reproduce {
                    s.push_str(&format!("reproduce {cmd}\n"));
                }
                s
            }
        }
    }

    /// The whole text report.
    pub fn to_text(&self, style: Style) -> String {
        let mut s = format!("engine    {} ({})\n", self.engine, self.engine_kind);
        for l in &self.levels {
            s.push_str(&CompareReport::level_text(l));
        }
        s.push_str(&self.verdict_text(style));
        s
    }
}
