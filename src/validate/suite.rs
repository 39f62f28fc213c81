//! EPD perft suites: parsing and checking.
//!
//! A line is a position (4-field EPD or 6-field FEN) followed by operations
//! separated by `;`. `Dn count` operations give perft counts. Accepted forms:
//!
//! ```text
//! rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400
//! rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ;D1 20;D2 400; id "start"
//! 8/8/8/8/8/8/8/K6k w - - bm Ka2; id "x"; c0 "a comment; with a semicolon"
//! # a comment line
//! ```
//!
//! Blank lines and lines starting with `#` are skipped; everything else must
//! parse, or loading fails with the file name and line number.
//!
//! Published leaf statistics (see `perft::stats`) are further `D` operations
//! with a suffix naming the figure, for a depth whose `Dn` count is given:
//!
//! ```text
//! ... ;D4 4085603 ;D4cap 757163 ;D4ep 1929 ;D4castles 128013 ;D4promo 15172
//!     ;D4checks 25523 ;D4disc 42 ;D4dbl 6 ;D4mates 43
//! ```
//!
//! Any subset of the eight suffixes ([`STAT_OPCODES`]) may be given; an
//! unknown suffix, a bad count, a repeated figure or a figure for a depth
//! without its `Dn` count is an error.

use std::path::Path;

use thiserror::Error;

use crate::chess::fen::InvalidFen;
use crate::chess::position::Position;
use crate::chess::zobrist::Zobrist;
use crate::perft::stats::{LeafStats, StatField};

/// The EPD suffixes of the statistics operations (`D4cap 757163`), one per
/// [`StatField`].
pub const STAT_OPCODES: [(&str, StatField); 8] = [
    ("cap", StatField::Captures),
    ("ep", StatField::EnPassant),
    ("castles", StatField::Castles),
    ("promo", StatField::Promotions),
    ("checks", StatField::Checks),
    ("disc", StatField::DiscoveredChecks),
    ("dbl", StatField::DoubleChecks),
    ("mates", StatField::Checkmates),
];

/// The EPD suffix of `field`.
pub fn stat_opcode(field: StatField) -> &'static str {
    STAT_OPCODES
        .iter()
        .find(|(_, f)| *f == field)
        .map_or("", |(code, _)| code)
}

/// One parsed EPD line.
#[derive(Clone, Debug)]
pub struct EpdRecord {
    /// 1-based line number in its file.
    pub line: usize,
    /// The position.
    pub position: Position,
    /// The position text as written (4 or 6 fields).
    pub fen_text: String,
    /// `(depth, expected count)` pairs in file order.
    pub depths: Vec<(u32, u64)>,
    /// `(depth, figure, expected value)` of the statistics operations
    /// (`D4cap 757163`), in file order.
    pub stats: Vec<(u32, StatField, u64)>,
    /// The `id` operand, if any (quotes removed).
    pub id: Option<String>,
    /// Every operation as `(opcode, operand)`, in order (including `D` ops).
    pub ops: Vec<(String, String)>,
}

impl EpdRecord {
    /// The statistics figures given for `depth`.
    pub fn stats_at(&self, depth: u32) -> impl Iterator<Item = (StatField, u64)> + '_ {
        self.stats
            .iter()
            .filter(move |&&(d, _, _)| d == depth)
            .map(|&(_, f, n)| (f, n))
    }

    /// The operand of `opcode`, if present.
    pub fn op(&self, opcode: &str) -> Option<&str> {
        self.ops
            .iter()
            .find(|(k, _)| k == opcode)
            .map(|(_, v)| v.as_str())
    }
}

/// A problem in an EPD line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EpdError {
    /// Fewer than 4 position fields.
    #[error("expected a position (4 FEN fields) before the operations, found '{0}'")]
    MissingFields(String),
    /// The position part is not a valid FEN.
    #[error("{0}")]
    Fen(#[from] InvalidFen),
    /// A `Dn` operation with a bad depth or count.
    #[error("bad perft operation '{0}': expected 'D<depth> <count>' with decimal numbers")]
    BadDepthOp(String),
    /// The same depth twice.
    #[error("depth {0} is given twice")]
    DuplicateDepth(u32),
    /// A statistics operation with an unknown figure or a bad count.
    #[error(
        "bad perft statistic '{0}': expected 'D<depth><figure> <count>' with a decimal count and <figure> one of cap, ep, castles, promo, checks, disc, dbl, mates"
    )]
    BadStatOp(String),
    /// The same figure twice for one depth.
    #[error("statistic D{0}{1} is given twice")]
    DuplicateStat(u32, &'static str),
    /// A statistics figure for a depth without a `Dn` count.
    #[error(
        "statistic D{0}{1} needs the node count of its depth ('D{0} <count>') on the same line"
    )]
    StatWithoutDepth(u32, &'static str),
    /// An unterminated quoted string.
    #[error("unterminated quoted string in '{0}'")]
    UnterminatedQuote(String),
}

/// A suite file that could not be loaded: names the file and line.
#[derive(Debug, Error)]
pub enum SuiteError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// File path.
        file: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The path is a directory.
    #[error("{file}: is a directory, not an EPD file")]
    Directory {
        /// The path.
        file: String,
    },
    /// The file is not text (a NUL byte or invalid UTF-8).
    #[error("{file}:{line}: not a text file (binary data at byte {offset}); expected EPD lines")]
    Binary {
        /// File path.
        file: String,
        /// 1-based line of that byte.
        line: usize,
        /// Offset of the first byte that is not text.
        offset: usize,
    },
    /// The file is larger than [`MAX_FILE_BYTES`].
    #[error("{file}: larger than {} MiB: not an EPD suite", MAX_FILE_BYTES >> 20)]
    TooLarge {
        /// File path.
        file: String,
    },
    /// The file has no position line (empty, blank or only comments).
    #[error("{file}: no positions (the file is empty or has only comments and blank lines)")]
    Empty {
        /// File path.
        file: String,
    },
    /// A line longer than [`MAX_LINE_BYTES`].
    #[error(
        "{file}:{line}: line of {bytes} bytes is too long for an EPD line (limit {MAX_LINE_BYTES})"
    )]
    LineTooLong {
        /// File path.
        file: String,
        /// 1-based line number.
        line: usize,
        /// Its length in bytes.
        bytes: usize,
    },
    /// A line does not parse.
    #[error("{file}:{line}: {error}")]
    Line {
        /// File path.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        error: EpdError,
    },
}

/// Splits `text` at `;` outside double quotes.
fn split_ops(text: &str) -> Result<Vec<&str>, EpdError> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted {
        return Err(EpdError::UnterminatedQuote(crate::chess::fen::quote(
            text.trim(),
        )));
    }
    parts.push(&text[start..]);
    Ok(parts)
}

/// Parses one non-comment EPD line.
pub fn parse_epd_line(text: &str, line: usize, chess960: bool) -> Result<EpdRecord, EpdError> {
    let ops_parts = split_ops(text)?;
    let head = ops_parts[0];
    let words: Vec<&str> = head.split_whitespace().collect();
    if words.len() < 4 {
        return Err(EpdError::MissingFields(crate::chess::fen::quote(
            text.trim(),
        )));
    }
    let is_clock = |w: &&str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    let has_clocks = words.len() >= 6 && is_clock(&words[4]) && is_clock(&words[5]);
    let fen_words = if has_clocks { 6 } else { 4 };
    let clocks = has_clocks.then(|| (words[4], words[5]));

    // Operations: the rest of the head (first op without a leading ';'), then the tail.
    let mut raw_ops: Vec<String> = Vec::new();
    if words.len() > fen_words {
        raw_ops.push(words[fen_words..].join(" "));
    }
    raw_ops.extend(ops_parts[1..].iter().map(|s| s.trim().to_string()));

    let mut ops = Vec::new();
    let mut depths: Vec<(u32, u64)> = Vec::new();
    let mut stats: Vec<(u32, StatField, u64)> = Vec::new();
    let mut id = None;
    let mut halfmove = None;
    let mut fullmove = None;
    for op in raw_ops.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let (code, operand) = match op.split_once(char::is_whitespace) {
            Some((c, rest)) => (c, rest.trim()),
            None => (op, ""),
        };
        if let Some((depth, field)) = stat_code(code) {
            let depth = depth.ok_or_else(|| EpdError::BadStatOp(op.to_string()))?;
            let field = field.ok_or_else(|| EpdError::BadStatOp(op.to_string()))?;
            let count: u64 = operand
                .parse()
                .ok()
                .filter(|_| operand.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| EpdError::BadStatOp(op.to_string()))?;
            if stats.iter().any(|&(d, f, _)| d == depth && f == field) {
                return Err(EpdError::DuplicateStat(depth, stat_opcode(field)));
            }
            stats.push((depth, field, count));
        } else if let Some(d) = code
            .strip_prefix('D')
            .or_else(|| code.strip_prefix('d'))
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        {
            let depth: u32 = d
                .parse()
                .map_err(|_| EpdError::BadDepthOp(op.to_string()))?;
            let count: u64 = operand
                .parse()
                .ok()
                .filter(|_| operand.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| EpdError::BadDepthOp(op.to_string()))?;
            if depth > crate::perft::MAX_PERFT_DEPTH {
                return Err(EpdError::BadDepthOp(crate::chess::fen::quote(op)));
            }
            if depths.iter().any(|&(d, _)| d == depth) {
                return Err(EpdError::DuplicateDepth(depth));
            }
            depths.push((depth, count));
        } else if code == "id" {
            id = Some(operand.trim_matches('"').to_string());
        } else if code == "hmvc" {
            halfmove = Some(operand);
        } else if code == "fmvn" {
            fullmove = Some(operand);
        }
        ops.push((code.to_string(), operand.to_string()));
    }
    if let Some(&(depth, field, _)) = stats
        .iter()
        .find(|&&(d, _, _)| !depths.iter().any(|&(dd, _)| dd == d))
    {
        return Err(EpdError::StatWithoutDepth(depth, stat_opcode(field)));
    }
    let clocks = clocks.or(match (halfmove, fullmove) {
        (None, None) => None,
        (h, f) => Some((h.unwrap_or("0"), f.unwrap_or("1"))),
    });
    let position = Position::from_fields(&words[..4], clocks, chess960, Zobrist::DEFAULT)?;
    Ok(EpdRecord {
        line,
        position,
        fen_text: words[..fen_words].join(" "),
        depths,
        stats,
        id,
        ops,
    })
}

/// For an opcode `D<digits><letters>`: the depth (`None` if it does not
/// fit) and the figure (`None` for an unknown suffix). `None` for any other
/// opcode (`D4`, `dm`, `id`, ...).
fn stat_code(code: &str) -> Option<(Option<u32>, Option<StatField>)> {
    let rest = code.strip_prefix('D').or_else(|| code.strip_prefix('d'))?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (depth, suffix) = rest.split_at(digits);
    if digits == 0 || suffix.is_empty() {
        return None;
    }
    let field = STAT_OPCODES
        .iter()
        .find(|(c, _)| *c == suffix)
        .map(|&(_, f)| f);
    Some((depth.parse().ok(), field))
}

/// Largest suite file read, in bytes (a device or a runaway file is
/// refused, not read without end).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Longest EPD line accepted, in bytes (a real one is under 200; this is
/// generous for long comments and operations).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Parses a whole suite text. `name` is used in error messages. Text with
/// no position line is an error ([`SuiteError::Empty`]), as is a line of
/// more than [`MAX_LINE_BYTES`].
pub fn parse_suite(text: &str, name: &str, chess960: bool) -> Result<Vec<EpdRecord>, SuiteError> {
    let mut records = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.len() > MAX_LINE_BYTES {
            return Err(SuiteError::LineTooLong {
                file: name.to_string(),
                line: i + 1,
                bytes: raw.len(),
            });
        }
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let record = parse_epd_line(line, i + 1, chess960).map_err(|error| SuiteError::Line {
            file: name.to_string(),
            line: i + 1,
            error,
        })?;
        records.push(record);
    }
    if records.is_empty() {
        return Err(SuiteError::Empty {
            file: name.to_string(),
        });
    }
    Ok(records)
}

/// Reads and parses a suite file.
pub fn load_suite(path: &Path, chess960: bool) -> Result<Vec<EpdRecord>, SuiteError> {
    let name = path.display().to_string();
    if path.is_dir() {
        return Err(SuiteError::Directory { file: name });
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| {
            use std::io::Read;
            f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)
        })
        .map_err(|source| SuiteError::Io {
            file: name.clone(),
            source,
        })?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(SuiteError::TooLarge { file: name });
    }
    // The first byte that is not text: a NUL, or where UTF-8 breaks.
    let valid = std::str::from_utf8(&bytes).map_or_else(|e| e.valid_up_to(), |t| t.len());
    let nul = bytes[..valid].iter().position(|&b| b == 0);
    if let Some(offset) = nul.or((valid < bytes.len()).then_some(valid)) {
        let line = 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count();
        return Err(SuiteError::Binary {
            file: name,
            line,
            offset,
        });
    }
    let text = std::str::from_utf8(&bytes).unwrap_or_default();
    parse_suite(text, &name, chess960)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_formats_in_the_wild() {
        let text = "\
# comment
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400

rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ;D1 20;D2 400; id \"start\"
8/8/8/8/8/8/8/K6k w - - bm Ka2; id \"x\"; c0 \"a; b\"; D1 3
";
        let recs = parse_suite(text, "t", false).unwrap();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].depths, vec![(1, 20), (2, 400)]);
        assert_eq!(recs[0].line, 2);
        assert_eq!(recs[1].depths, vec![(1, 20), (2, 400)]);
        assert_eq!(recs[1].id.as_deref(), Some("start"));
        assert_eq!(recs[2].op("bm"), Some("Ka2"));
        assert_eq!(recs[2].op("c0"), Some("\"a; b\""));
        assert_eq!(recs[2].depths, vec![(1, 3)]);
    }

    #[test]
    fn statistics_opcodes_parse_and_bad_ones_are_errors() {
        let line = "8/8/8/8/8/8/8/K6k w - - ;D1 3 ;D1cap 0 ;D2 9 ;d2mates 1 ;D2ep 0; dm 2";
        let r = parse_epd_line(line, 1, false).unwrap();
        assert_eq!(r.depths, vec![(1, 3), (2, 9)]);
        assert_eq!(
            r.stats,
            vec![
                (1, StatField::Captures, 0),
                (2, StatField::Checkmates, 1),
                (2, StatField::EnPassant, 0)
            ]
        );
        assert_eq!(r.stats_at(2).count(), 2);
        assert_eq!(r.op("dm"), Some("2"));
        for (ops, err) in [
            (
                ";D1 3 ;D1captures 0",
                EpdError::BadStatOp("D1captures 0".into()),
            ),
            (";D1 3 ;D1cap -1", EpdError::BadStatOp("D1cap -1".into())),
            (";D1 3 ;D1dbl 0 ;D1dbl 1", EpdError::DuplicateStat(1, "dbl")),
            (";D1 3 ;D3disc 0", EpdError::StatWithoutDepth(3, "disc")),
        ] {
            let line = format!("8/8/8/8/8/8/8/K6k w - - {ops}");
            assert_eq!(parse_epd_line(&line, 1, false).unwrap_err(), err, "{ops}");
        }
        for (code, field) in STAT_OPCODES {
            assert_eq!(stat_opcode(field), code);
        }
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let err = parse_suite("8/8/8/8/8/8/8/K6k w - - ;D1 x\n", "f.epd", false).unwrap_err();
        assert!(
            err.to_string().starts_with("f.epd:1: bad perft operation"),
            "{err}"
        );
        let err = parse_suite("\n\nnot a fen ;D1 1\n", "g.epd", false).unwrap_err();
        assert!(err.to_string().starts_with("g.epd:3:"), "{err}");
        let err = parse_suite("8/8/8/8/8/8/8/K6k w - - ;D1 3 ;D1 3\n", "h", false).unwrap_err();
        assert!(matches!(
            err,
            SuiteError::Line {
                error: EpdError::DuplicateDepth(1),
                ..
            }
        ));
    }
}

/// Limits for a suite run.
#[derive(Clone, Debug, Default)]
pub struct SuiteLimits {
    /// Skip depths above this.
    pub max_depth: Option<u32>,
    /// Skip counts whose expected value is above this.
    pub max_nodes: Option<u64>,
    /// Check the statistics figures (`D4cap ...`) too (`--stats`).
    pub stats: bool,
}

/// One checked statistics figure.
#[derive(Clone, Debug, serde::Serialize)]
pub struct StatCheck {
    /// The figure ([`StatField::name`]).
    pub field: &'static str,
    /// Value from the suite.
    pub expected: u64,
    /// Value computed.
    pub got: u64,
    /// `expected == got`.
    pub pass: bool,
}

/// One checked depth.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DepthCheck {
    /// Depth in plies.
    pub depth: u32,
    /// Count from the suite.
    pub expected: u64,
    /// Count computed.
    pub got: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `expected == got` and every figure of `stats` matched.
    pub pass: bool,
    /// The statistics figures checked at this depth (empty without
    /// `--stats` or when the line gives none for it).
    pub stats: Vec<StatCheck>,
    /// Statistics figures given for this depth but not checked (no `--stats`).
    pub stats_not_checked: usize,
}

/// The outcome of one suite line.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PositionOutcome {
    /// Suite file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// `id` operand, if any.
    pub id: Option<String>,
    /// Position as written in the file.
    pub fen: String,
    /// Depths checked, in file order, up to the first failure.
    pub checks: Vec<DepthCheck>,
    /// Depths not run because of `max_depth` / `max_nodes`.
    pub skipped: Vec<u32>,
    /// The depth whose count was stopped before it finished (timeout or
    /// Ctrl-C); deeper depths were not run.
    pub stopped_at_depth: Option<u32>,
}

impl PositionOutcome {
    /// True if every checked depth matched.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.pass)
    }
}

/// Checks one record: every depth within the limits, in file order, stopping at
/// the first mismatch (deeper counts of a wrong generator tell nothing new).
/// `perft(position, depth, stats)` returns the count, and with `stats` (asked
/// for when `limits.stats` is set and the line gives figures for that depth)
/// the leaf breakdown too; `None` when it was stopped: the outcome then
/// records the depth in `stopped_at_depth` and runs nothing deeper.
pub fn check_record<P: FnMut(&Position, u32, bool) -> Option<(u64, Option<LeafStats>)>>(
    file: &str,
    record: &EpdRecord,
    limits: &SuiteLimits,
    mut perft: P,
) -> PositionOutcome {
    let mut outcome = PositionOutcome {
        file: file.to_string(),
        line: record.line,
        id: record.id.clone(),
        fen: record.fen_text.clone(),
        checks: Vec::new(),
        skipped: Vec::new(),
        stopped_at_depth: None,
    };
    let mut failed = false;
    for &(depth, expected) in &record.depths {
        let too_deep = limits.max_depth.is_some_and(|m| depth > m);
        let too_big = limits.max_nodes.is_some_and(|m| expected > m);
        if too_deep || too_big || failed {
            if !failed {
                outcome.skipped.push(depth);
            }
            continue;
        }
        let given: Vec<(StatField, u64)> = record.stats_at(depth).collect();
        let want_stats = limits.stats && !given.is_empty();
        let start = std::time::Instant::now();
        let Some((got, breakdown)) = perft(&record.position, depth, want_stats) else {
            outcome.stopped_at_depth = Some(depth);
            break;
        };
        let seconds = start.elapsed().as_secs_f64();
        let stats: Vec<StatCheck> = match breakdown.filter(|_| want_stats) {
            Some(b) => given
                .iter()
                .map(|&(field, expected)| StatCheck {
                    field: field.name(),
                    expected,
                    got: field.of(&b),
                    pass: field.of(&b) == expected,
                })
                .collect(),
            None => Vec::new(),
        };
        let pass = got == expected && stats.iter().all(|c| c.pass);
        outcome.checks.push(DepthCheck {
            depth,
            expected,
            got,
            seconds,
            pass,
            stats_not_checked: if want_stats { 0 } else { given.len() },
            stats,
        });
        failed = !pass;
    }
    outcome
}
