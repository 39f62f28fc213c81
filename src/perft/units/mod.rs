//! Work units for deep perft runs beyond one machine (or one sitting).
//!
//! A deep perft is split at a ply `K` into the **unique** positions there,
//! each with its multiplicity (how many move paths reach it) and the root
//! moves those paths start with. Counting each unique position once to the
//! remaining depth and summing `multiplicity x count` gives the perft; the
//! per-root-move shares give the divide. This is how the record counts of
//! the start position (perft 11 to 15) were made.
//!
//! A *job* is a directory:
//!
//! | file | written by | contents |
//! |---|---|---|
//! | `manifest.json` | [`split()`] | [`Manifest`]: root, depths, units, the sha256 of every unit file |
//! | `unit-NNNNN.jsonl` | [`split()`] | one [`UnitRecord`] per line |
//! | `unit-NNNNN.result.jsonl` | [`run_unit`] | one [`ResultRecord`] per line, then a [`UnitSummary`] |
//!
//! Every result line carries a checksum of its own text (see [`seal`]), the
//! job id and the unit number, and is flushed and fsynced before the next
//! record starts, so a killed run loses at most the record it was counting:
//! [`run_unit`] skips what is done and redoes a torn or corrupt line.
//! [`merge`] sums only complete units and lists the others; [`verify`]
//! compares two runs of the same split record by record.
//!
//! Sums and products are `u128`, written as decimal strings.

mod merge;
mod run;
mod split;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

pub use merge::{
    Difference, MergeOutcome, UnitProblem, VerifyOutcome, merge, unit_statuses, verify,
};
pub use run::{PendingWork, RunOutcome, UnitRunOutcome, pending_work, run_job, run_unit};
pub use split::{SplitSpec, split};

/// Version of the job file formats (manifest, unit and result lines).
pub const JOB_SCHEMA_VERSION: u32 = 1;
/// The `kind` field of a manifest.
pub const JOB_KIND: &str = "perft-job";
/// Name of the manifest in a job directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Name of unit `index`'s record file.
pub fn unit_file_name(index: usize) -> String {
    format!("unit-{index:05}.jsonl")
}

/// Name of unit `index`'s result file.
pub fn result_file_name(index: usize) -> String {
    format!("unit-{index:05}.result.jsonl")
}

/// `u128` as a JSON decimal string (JSON numbers lose precision above 2^53
/// in many readers).
pub mod decimal {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `n` as a decimal string.
    pub fn serialize<S: Serializer>(n: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&n.to_string())
    }

    /// Reads a decimal string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = String::deserialize(d)?;
        text.parse()
            .map_err(|_| serde::de::Error::custom(format!("'{text}' is not a decimal u128")))
    }
}

/// The description of a job: `manifest.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Manifest {
    /// [`JOB_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Always [`JOB_KIND`].
    pub kind: String,
    /// sha256 (first 16 hex digits) of the split's parameters and records:
    /// the same split gives the same id; every unit and result line names it.
    pub job_id: String,
    /// `perft <version>` that wrote the split.
    pub tool_version: String,
    /// FEN of the root position (after any `--moves`).
    pub root_fen: String,
    /// Chess960 castling notation.
    pub chess960: bool,
    /// Total perft depth, plies.
    pub depth: u32,
    /// Ply of the split; every record has `depth - split_ply` plies left.
    pub split_ply: u32,
    /// Unique positions at the split ply (records over all units).
    pub positions: u64,
    /// Sum of the multiplicities: perft(`split_ply`) of the root, checked
    /// against the counter when the split was made.
    #[serde(with = "decimal")]
    pub paths: u128,
    /// Every legal root move (UCI), in generation order.
    pub root_moves: Vec<String>,
    /// The units, in index order.
    pub units: Vec<UnitEntry>,
}

/// One unit in the manifest.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct UnitEntry {
    /// File name, relative to the job directory.
    pub file: String,
    /// Records in the file.
    pub records: u64,
    /// Sum of the records' work estimates (arbitrary unit; for balancing).
    #[serde(with = "decimal")]
    pub estimate: u128,
    /// sha256 of the file, hex.
    pub sha256: String,
}

/// How many paths from one root move reach a record's position.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct RootShare {
    /// The root move, UCI.
    #[serde(rename = "move")]
    pub mv: String,
    /// Paths starting with it.
    #[serde(with = "decimal")]
    pub paths: u128,
}

/// One unique position to count: a line of a unit file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct UnitRecord {
    /// The job id.
    pub job: String,
    /// Unit index.
    pub unit: usize,
    /// Index of the record within its unit (line number, from 0).
    pub index: usize,
    /// The position, as reached by the first path found (clocks never
    /// change a count).
    pub fen: String,
    /// Plies left to count.
    pub depth: u32,
    /// Paths from the root reaching this position.
    #[serde(with = "decimal")]
    pub multiplicity: u128,
    /// The multiplicity split by root move.
    pub roots: Vec<RootShare>,
    /// Estimated work (arbitrary unit): perft 2 raised to depth/2.
    pub estimate: u64,
}

/// A counted record: a line of a result file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ResultRecord {
    /// The job id.
    pub job: String,
    /// Unit index.
    pub unit: usize,
    /// Record index within the unit.
    pub index: usize,
    /// The record's FEN (copied, so a result file reads on its own).
    pub fen: String,
    /// Plies counted.
    pub depth: u32,
    /// The record's multiplicity.
    #[serde(with = "decimal")]
    pub multiplicity: u128,
    /// perft(`depth`) of the position.
    #[serde(with = "decimal")]
    pub count: u128,
    /// `multiplicity x count`.
    #[serde(with = "decimal")]
    pub product: u128,
    /// Zobrist seed of the perft table that counted it.
    pub zobrist_seed: u64,
    /// Perft table size in bytes (0: none).
    pub hash_bytes: u64,
    /// Wall time of the count, seconds.
    pub seconds: f64,
}

/// The last line of a complete result file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct UnitSummary {
    /// The job id.
    pub job: String,
    /// Unit index.
    pub unit: usize,
    /// Records counted (all of the unit's).
    pub records: usize,
    /// Sum of the products.
    #[serde(with = "decimal")]
    pub sum: u128,
    /// sha256 of the record lines (with their newlines) in index order.
    pub results_sha256: String,
}

/// A line of a result file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResultLine {
    /// A counted record.
    Record(ResultRecord),
    /// The unit's summary.
    Summary(UnitSummary),
}

/// Input that is not a usable job: the CLI exits 2 on these.
#[derive(Debug, Error)]
pub enum JobError {
    /// No manifest in the directory.
    #[error("{0}: not a perft job directory (no manifest.json; make one with `perft split`)")]
    NotAJob(PathBuf),
    /// A manifest of another format version.
    #[error(
        "{path}: job format version {found}, but this perft reads version {JOB_SCHEMA_VERSION}"
    )]
    Schema {
        /// The manifest.
        path: PathBuf,
        /// Its version.
        found: u64,
    },
    /// A unit or result line that names another job.
    #[error("{path}: line {line} belongs to job {found}, not to this job ({expected})")]
    ForeignJob {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The job id in the line.
        found: String,
        /// The job id of the manifest.
        expected: String,
    },
    /// A unit file that does not match its manifest entry.
    #[error("{path}: {message}")]
    BadUnit {
        /// The unit file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A malformed manifest.
    #[error("{path}: {message}")]
    BadManifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Two jobs that are not the same split.
    #[error(
        "{a} and {b} are different splits (job {a_id} vs {b_id}): --verify compares two runs of the same split (copy the job directory before running it)"
    )]
    DifferentJobs {
        /// First job directory.
        a: PathBuf,
        /// Its id.
        a_id: String,
        /// Second job directory.
        b: PathBuf,
        /// Its id.
        b_id: String,
    },
    /// A unit index outside the job.
    #[error("unit index {index} is out of range: the job has {units} units, indexed 0 to {last}", last = units.saturating_sub(1))]
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// Units in the job.
        units: usize,
    },
    /// Another process holds the unit.
    #[error("{0}: another process is running this unit (file lock held)")]
    Locked(PathBuf),
    /// Bad split parameters.
    #[error("{0}")]
    Split(String),
    /// A file operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// Attaches a path to an I/O error.
fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> JobError + '_ {
    move |source| JobError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// sha256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Hex digits of the per-line checksum.
const CHECK_LEN: usize = 16;
/// What precedes the checksum at the end of a sealed line.
const CHECK_FIELD: &str = ",\"check\":\"";

/// Seals a JSON object's text: appends a `check` field holding the first 16
/// hex digits of the sha256 of the text without it. `{"a":1}` becomes
/// `{"a":1,"check":"<hex>"}`. [`unseal`] takes the check off again.
pub fn seal(json_object: &str) -> String {
    debug_assert!(json_object.starts_with('{') && json_object.ends_with('}'));
    let check = &sha256_hex(json_object.as_bytes())[..CHECK_LEN];
    let body = &json_object[..json_object.len() - 1];
    format!("{body}{CHECK_FIELD}{check}\"}}")
}

/// The object text under a sealed line, if its checksum is right.
pub fn unseal(line: &str) -> Result<String, &'static str> {
    let rest = line
        .strip_suffix("\"}")
        .ok_or("no checksum (line does not end with the check field)")?;
    let at = rest
        .rfind(CHECK_FIELD)
        .ok_or("no checksum (check field missing)")?;
    let check = &rest[at + CHECK_FIELD.len()..];
    let body = format!("{}}}", &rest[..at]);
    if check.len() != CHECK_LEN || sha256_hex(body.as_bytes())[..CHECK_LEN] != *check {
        return Err("checksum mismatch");
    }
    Ok(body)
}

/// An opened job directory: its manifest, checked.
#[derive(Clone, Debug)]
pub struct Job {
    /// The directory.
    pub dir: PathBuf,
    /// The manifest.
    pub manifest: Manifest,
}

impl Job {
    /// Opens the job in `dir`: the manifest must exist, be of this format
    /// version and be consistent (unit count, names).
    pub fn open(dir: &Path) -> Result<Job, JobError> {
        let path = dir.join(MANIFEST_FILE);
        if !dir.is_dir() || !path.is_file() {
            return Err(JobError::NotAJob(dir.to_path_buf()));
        }
        let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
        let bad = |message: String| JobError::BadManifest {
            path: path.clone(),
            message,
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
        if value.get("kind").and_then(|k| k.as_str()) != Some(JOB_KIND) {
            return Err(bad(format!(
                "not a perft job manifest (kind is not \"{JOB_KIND}\")"
            )));
        }
        let version = value.get("schema_version").and_then(|v| v.as_u64());
        match version {
            Some(v) if v == u64::from(JOB_SCHEMA_VERSION) => {}
            Some(found) => return Err(JobError::Schema { path, found }),
            None => return Err(bad("no schema_version".into())),
        }
        let manifest: Manifest =
            serde_json::from_value(value).map_err(|e| bad(format!("malformed manifest: {e}")))?;
        if manifest.units.is_empty() {
            return Err(bad("no units".into()));
        }
        for (i, unit) in manifest.units.iter().enumerate() {
            if unit.file != unit_file_name(i) {
                return Err(bad(format!(
                    "unit {i} is named {}, expected {}",
                    unit.file,
                    unit_file_name(i)
                )));
            }
        }
        if manifest.split_ply > manifest.depth {
            return Err(bad("split_ply is above depth".into()));
        }
        Ok(Job {
            dir: dir.to_path_buf(),
            manifest,
        })
    }

    /// Number of units.
    pub fn units(&self) -> usize {
        self.manifest.units.len()
    }

    /// Path of unit `index`'s record file.
    pub fn unit_path(&self, index: usize) -> PathBuf {
        self.dir.join(unit_file_name(index))
    }

    /// Path of unit `index`'s result file.
    pub fn result_path(&self, index: usize) -> PathBuf {
        self.dir.join(result_file_name(index))
    }

    /// Checks `index` is a unit of this job.
    pub fn check_index(&self, index: usize) -> Result<(), JobError> {
        if index >= self.units() {
            return Err(JobError::IndexOutOfRange {
                index,
                units: self.units(),
            });
        }
        Ok(())
    }

    /// Reads unit `index`'s records. A line naming another job is a
    /// [`JobError::ForeignJob`]; a file whose sha256 differs from the
    /// manifest's, or that does not parse, is a [`JobError::BadUnit`].
    pub fn load_unit(&self, index: usize) -> Result<Vec<UnitRecord>, JobError> {
        self.check_index(index)?;
        let path = self.unit_path(index);
        let bytes = std::fs::read(&path).map_err(io_err(&path))?;
        let bad = |message: String| JobError::BadUnit {
            path: path.clone(),
            message,
        };
        let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))?;
        let mut records = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let record: UnitRecord = match serde_json::from_str(line) {
                Ok(r) => r,
                // A line of another format may still name its job.
                Err(e) => {
                    self.check_job_of(line, &path, n + 1)?;
                    return Err(bad(format!("line {}: not a unit record: {e}", n + 1)));
                }
            };
            if record.job != self.manifest.job_id {
                return Err(JobError::ForeignJob {
                    path,
                    line: n + 1,
                    found: record.job,
                    expected: self.manifest.job_id.clone(),
                });
            }
            if record.unit != index || record.index != n {
                return Err(bad(format!(
                    "line {} is record {} of unit {}, expected record {n} of unit {index}",
                    n + 1,
                    record.index,
                    record.unit
                )));
            }
            records.push(record);
        }
        let entry = &self.manifest.units[index];
        let sha = sha256_hex(text.as_bytes());
        if sha != entry.sha256 {
            return Err(bad(format!(
                "sha256 {sha} differs from the manifest's {}: the unit file was changed or damaged (split again)",
                entry.sha256
            )));
        }
        if records.len() as u64 != entry.records {
            return Err(bad(format!(
                "{} records, the manifest says {}",
                records.len(),
                entry.records
            )));
        }
        Ok(records)
    }

    /// A [`JobError::ForeignJob`] if `line` is JSON naming another job.
    fn check_job_of(&self, line: &str, path: &Path, line_no: usize) -> Result<(), JobError> {
        let job = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("job").and_then(|j| j.as_str()).map(str::to_string));
        match job {
            Some(found) if found != self.manifest.job_id => Err(JobError::ForeignJob {
                path: path.to_path_buf(),
                line: line_no,
                found,
                expected: self.manifest.job_id.clone(),
            }),
            _ => Ok(()),
        }
    }
}

/// The tool version written into manifests.
pub fn tool_version() -> String {
    format!("perft {}", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_lines_unseal_and_any_changed_byte_is_caught() {
        let line = seal(r#"{"a":"1","b":2}"#);
        assert_eq!(unseal(&line).unwrap(), r#"{"a":"1","b":2}"#);
        let changed = line.replace("\"1\"", "\"7\"");
        assert_eq!(unseal(&changed), Err("checksum mismatch"));
        let torn = &line[..line.len() - 3];
        assert!(unseal(torn).is_err());
    }

    #[test]
    fn u128_fields_are_decimal_strings() {
        let share = RootShare {
            mv: "e2e4".into(),
            paths: u128::MAX,
        };
        let text = serde_json::to_string(&share).unwrap();
        assert_eq!(
            text,
            format!(r#"{{"move":"e2e4","paths":"{}"}}"#, u128::MAX)
        );
        assert_eq!(serde_json::from_str::<RootShare>(&text).unwrap(), share);
    }
}
