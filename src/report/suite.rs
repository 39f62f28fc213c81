//! The `perft suite` report.

use serde::Serialize;

use super::style::Style;
use super::{Header, StoppedBy, Warning, plural, thousands};
use crate::validate::bisect::{Bisection, Verdict};
use crate::validate::suite::PositionOutcome;

/// Status of one suite position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PositionStatus {
    /// Every checked count matched.
    Pass,
    /// A count differed.
    Fail,
    /// Nothing within the limits.
    Skipped,
    /// The line has no `;Dn` perft counts.
    NoCounts,
    /// `--timeout` elapsed before every depth was checked.
    Timeout,
    /// Ctrl-C before every depth was checked.
    Interrupted,
    /// `--max-time` ended the run before every depth was checked.
    MaxTime,
}

/// One position of a suite run.
#[derive(Clone, Debug, Serialize)]
pub struct SuitePosition {
    /// What was checked.
    #[serde(flatten)]
    pub outcome: PositionOutcome,
    /// The verdict.
    pub status: PositionStatus,
    /// For a failure: the next step, a `perft compare` command that bisects
    /// it against Stockfish (useful when the EPD count is right; when
    /// Stockfish agrees with us, the EPD count is wrong).
    pub bisect: Option<String>,
    /// With `--engine`, for a failure: the bisection of the engine against
    /// this generator at the failing depth (path, FEN, missing, extra, the
    /// levels with their differing counts).
    pub bisection: Option<Bisection>,
}

impl SuitePosition {
    /// The position's line of text output (two lines for a failure).
    pub fn to_text(&self, style: Style) -> String {
        let o = &self.outcome;
        let place = format!("{}:{}", o.file, o.line);
        let id =
            o.id.as_deref()
                .map(|i| format!("  [{i}]"))
                .unwrap_or_default();
        let time: f64 = o.checks.iter().map(|c| c.seconds).sum();
        let skipped = if o.skipped.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = o.skipped.iter().map(|d| format!("D{d}")).collect();
            format!("  (skipped {})", list.join(" "))
        };
        let depths = depth_list(&o.checks.iter().map(|c| c.depth).collect::<Vec<_>>());
        match self.status {
            PositionStatus::Fail => {
                let bad = o.checks.iter().find(|c| !c.pass).expect("a failed check");
                // The node count first; if it matched, every wrong figure.
                let what = if bad.expected != bad.got {
                    format!(
                        "expected {}  got {}",
                        thousands(bad.expected.into()),
                        thousands(bad.got.into())
                    )
                } else {
                    bad.stats
                        .iter()
                        .filter(|st| !st.pass)
                        .map(|st| {
                            format!(
                                "{} expected {}  got {}",
                                st.field,
                                thousands(st.expected.into()),
                                thousands(st.got.into())
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(";  ")
                };
                let mut s = format!(
                    "{}  {place}  D{}  {what}  {time:.2} s{id}\n      {}\n",
                    style.bad("FAIL"),
                    bad.depth,
                    o.fen,
                );
                if let Some(cmd) = &self.bisect {
                    s.push_str(&format!(
                        "      next: {cmd}\n      (finds the first wrong move if the EPD count is \
                         right; if Stockfish agrees with this generator, the EPD count is wrong)\n"
                    ));
                }
                if let Some(b) = &self.bisection {
                    s.push_str(&bisection_text(b));
                }
                s
            }
            PositionStatus::Pass => {
                let figures: usize = o.checks.iter().map(|c| c.stats.len()).sum();
                let stats = if figures > 0 {
                    format!("  (+{figures} statistics)")
                } else {
                    String::new()
                };
                format!(
                    "{}    {place}  {depths}  {}{stats}  {time:.2} s{id}{skipped}\n",
                    style.good("ok"),
                    thousands(o.checks.last().map_or(0, |c| c.got.into()))
                )
            }
            PositionStatus::Skipped => {
                format!("skip  {place}  nothing within the limits{id}{skipped}\n")
            }
            PositionStatus::NoCounts => {
                format!("skip  {place}  no perft counts (;D1 20 ;D2 400 ...) on this line{id}\n")
            }
            PositionStatus::Timeout | PositionStatus::Interrupted | PositionStatus::MaxTime => {
                let word = match self.status {
                    PositionStatus::Timeout => "TIME",
                    PositionStatus::MaxTime => "STOP",
                    _ => "INTR",
                };
                let done = if depths.is_empty() {
                    String::new()
                } else {
                    format!("  ({depths} ok, {time:.2} s)")
                };
                let why = match self.status {
                    PositionStatus::Timeout => "not finished within --timeout",
                    PositionStatus::MaxTime => "stopped by --max-time",
                    _ => "interrupted",
                };
                format!(
                    "{}  {place}  D{} {why}{done}{id}\n",
                    style.note(word),
                    o.stopped_at_depth.unwrap_or(0)
                )
            }
        }
    }
}

/// The indented lines of a bisection under a failed suite line.
fn bisection_text(b: &Bisection) -> String {
    let list = |v: &[String]| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.join(" ")
        }
    };
    let path = if b.path.is_empty() {
        "(the position itself)".to_string()
    } else {
        b.path.join(" ")
    };
    match b.verdict {
        Verdict::Agree => "      bisect: the engine agrees with this generator at that depth: \
             the EPD count looks wrong\n"
            .to_string(),
        Verdict::MovesDiffer => format!(
            "      bisect: the move lists differ after {path}\n      fen     {}\n      \
             missing {}\n      extra   {}\n",
            b.fen,
            list(&b.missing),
            list(&b.extra)
        ),
        Verdict::Inconsistent => format!(
            "      bisect: the engine's counts are inconsistent after {path}: {}\n      fen     {}\n",
            b.note.as_deref().unwrap_or(""),
            b.fen
        ),
    }
}

/// Depths as text: a run of consecutive depths as a range (`D1-5`), others
/// listed (`D1 D3`, `D1-3 D5`).
pub fn depth_list(depths: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < depths.len() {
        let mut j = i;
        while j + 1 < depths.len() && depths[j + 1] == depths[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("D{}-{}", depths[i], depths[j])
        } else {
            format!("D{}", depths[i])
        });
        i = j + 1;
    }
    parts.join(" ")
}

/// Totals of a suite run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SuiteSummary {
    /// Positions with at least one count checked.
    pub positions_checked: usize,
    /// Positions where a count differed.
    pub positions_failed: usize,
    /// Positions stopped by `--timeout`.
    pub positions_timed_out: usize,
    /// Positions selected but not run (after `--fail-fast` or Ctrl-C).
    pub positions_not_run: usize,
    /// Depth counts checked.
    pub counts_checked: usize,
    /// Depth counts that differed.
    pub counts_failed: usize,
    /// Depth counts skipped because of the limits.
    pub counts_skipped: usize,
    /// Statistics figures (`D4cap ...`) checked (with `--stats`).
    pub stats_checked: usize,
    /// Statistics figures that differed.
    pub stats_failed: usize,
    /// Statistics figures of checked depths left unchecked (no `--stats`).
    pub stats_not_checked: usize,
    /// Sum of all computed counts (leaf nodes).
    pub nodes: u128,
    /// Exact decimal string of `nodes`.
    pub nodes_str: String,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Result of `perft suite`.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The engine checked (`--engine`), or `null` when this generator was.
    pub engine: Option<String>,
    /// Files run.
    pub files: Vec<String>,
    /// `--filter` values (a position runs if any matches); empty = all.
    pub filters: Vec<String>,
    /// Depth limit (`null` = none).
    pub max_depth: Option<u32>,
    /// Node limit (`null` = none).
    pub max_nodes: Option<u64>,
    /// Per-position time limit in seconds (`null` = none).
    pub timeout: Option<f64>,
    /// Time limit of the whole run in seconds (`null` = none).
    pub max_time: Option<f64>,
    /// `--fail-fast`.
    pub fail_fast: bool,
    /// `--stats`: statistics figures checked (their depths counted without
    /// the perft table).
    pub stats: bool,
    /// Worker threads.
    pub threads: usize,
    /// The perft table's size, mode and set-up (made before the first
    /// position, so outside `summary.seconds`); `null` without a table.
    pub table: Option<super::TableSetupReport>,
    /// False when stopped early (Ctrl-C or `--max-time`).
    pub complete: bool,
    /// What stopped the run early (`null` when complete).
    pub stopped_by: Option<StoppedBy>,
    /// One entry per position run, in file order.
    pub positions: Vec<SuitePosition>,
    /// Totals.
    pub summary: SuiteSummary,
    /// Warnings (also printed on stderr).
    pub warnings: Vec<Warning>,
}

impl SuiteReport {
    /// The closing text: the totals and `PASS`, `FAIL` or `INTERRUPTED`.
    pub fn summary_text(&self, style: Style) -> String {
        let s = &self.summary;
        let mut extra = String::new();
        if s.positions_timed_out > 0 {
            extra.push_str(&format!(
                "; {} stopped by --timeout (not verified)",
                thousands(s.positions_timed_out as u128)
            ));
        }
        if s.positions_not_run > 0 {
            extra.push_str(&format!(
                "; {} not run ({})",
                thousands(s.positions_not_run as u128),
                match (self.complete, self.stopped_by) {
                    (true, _) => "--fail-fast",
                    (false, Some(StoppedBy::MaxTime)) => "--max-time",
                    (false, _) => "interrupted",
                }
            ));
        }
        if s.stats_checked > 0 {
            extra.push_str(&format!(
                "; {} statistics checked, {} failed",
                s.stats_checked, s.stats_failed
            ));
        }
        if s.stats_not_checked > 0 {
            extra.push_str(&format!(
                "; {} statistics not checked (add --stats)",
                s.stats_not_checked
            ));
        }
        let verdict = if !self.complete {
            style.note(match self.stopped_by {
                Some(StoppedBy::MaxTime) => "STOPPED BY --max-time (partial results)",
                _ => "INTERRUPTED (partial results)",
            })
        } else if s.counts_failed > 0 {
            style.bad("FAIL")
        } else if s.counts_checked == 0 {
            style.bad("NOTHING VERIFIED: no count was checked (every one skipped by the limits, timed out, or absent)")
        } else {
            style.good("PASS")
        };
        if let Some(t) = &self.table {
            extra.push_str(&format!(
                " (and {:.2} s before them to set up the {} table)",
                t.setup_seconds,
                crate::perft::hash::human_bytes(t.hash_bytes)
            ));
        }
        format!(
            "\n{} checked, {} failed; {} checked, {} failed, {} skipped (limits: {}); {} nodes in {:.2} s{extra}\n{verdict}\n",
            plural(s.positions_checked as u128, "position"),
            thousands(s.positions_failed as u128),
            plural(s.counts_checked as u128, "count"),
            thousands(s.counts_failed as u128),
            thousands(s.counts_skipped as u128),
            self.describe_limits(),
            thousands(s.nodes),
            s.seconds,
        )
    }

    fn describe_limits(&self) -> String {
        let depth = self
            .max_depth
            .map_or("no depth limit".to_string(), |d| format!("--max-depth {d}"));
        let nodes = self.max_nodes.map_or("no node limit".to_string(), |n| {
            format!("--max-nodes {}", thousands(n.into()))
        });
        format!("{depth}, {nodes}")
    }

    /// The whole text report (what `perft suite` prints line by line).
    pub fn to_text(&self, style: Style) -> String {
        let mut out: String = self.positions.iter().map(|p| p.to_text(style)).collect();
        out.push_str(&self.summary_text(style));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::depth_list;

    #[test]
    fn only_consecutive_depths_make_a_range() {
        assert_eq!(depth_list(&[1, 3]), "D1 D3");
        assert_eq!(depth_list(&[1, 2, 3]), "D1-3");
        assert_eq!(depth_list(&[1, 2, 3, 5]), "D1-3 D5");
        assert_eq!(depth_list(&[4]), "D4");
        assert_eq!(depth_list(&[]), "");
    }
}
