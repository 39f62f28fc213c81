//! Merging a job's results, and comparing two runs of one split.

use std::collections::BTreeSet;

use serde::Serialize;

use super::run::scan;
use super::{Job, JobError, ResultRecord, UnitRecord};

/// Why a unit cannot be summed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum UnitProblem {
    /// No result file.
    Missing,
    /// Some records done, no valid summary.
    Partial {
        /// Records done.
        done: usize,
        /// Records in the unit.
        total: usize,
    },
    /// Damaged lines or a summary that does not match.
    Corrupt {
        /// What is wrong, line by line.
        reasons: Vec<String>,
    },
}

impl std::fmt::Display for UnitProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnitProblem::Missing => write!(f, "missing (no result file)"),
            UnitProblem::Partial { done, total } => {
                write!(f, "partial ({done} of {total} records done)")
            }
            UnitProblem::Corrupt { reasons } => write!(f, "corrupt: {}", reasons.join("; ")),
        }
    }
}

/// A complete unit: its records and their results, in index order.
struct CompleteUnit {
    records: Vec<UnitRecord>,
    results: Vec<ResultRecord>,
}

/// Each unit's records and results, or what keeps it from being summed.
/// Errors (exit 2) for input that is not this job's.
fn collect(job: &Job) -> Result<Vec<Result<CompleteUnit, UnitProblem>>, JobError> {
    let mut units = Vec::with_capacity(job.units());
    for index in 0..job.units() {
        let records = match job.load_unit(index) {
            Ok(r) => r,
            Err(JobError::BadUnit { message, .. }) => {
                units.push(Err(UnitProblem::Corrupt {
                    reasons: vec![format!("unit file: {message}")],
                }));
                continue;
            }
            Err(JobError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                units.push(Err(UnitProblem::Corrupt {
                    reasons: vec!["unit file missing".into()],
                }));
                continue;
            }
            Err(e) => return Err(e),
        };
        let scan = scan(job, index, &records)?;
        let unit = if scan.complete() {
            Ok(CompleteUnit {
                results: scan.done.into_iter().flatten().map(|(r, _)| r).collect(),
                records,
            })
        } else if !scan.exists {
            Err(UnitProblem::Missing)
        } else if !scan.problems.is_empty() {
            Err(UnitProblem::Corrupt {
                reasons: scan.problems,
            })
        } else {
            Err(UnitProblem::Partial {
                done: scan.done_count(),
                total: records.len(),
            })
        };
        units.push(unit);
    }
    Ok(units)
}

/// Each unit's state: `None` when complete, else its problem.
pub fn unit_statuses(job: &Job) -> Result<Vec<Option<UnitProblem>>, JobError> {
    Ok(collect(job)?.into_iter().map(|u| u.err()).collect())
}

/// A merged job.
#[derive(Clone, Debug, Serialize)]
pub struct MergeOutcome {
    /// The perft: sum of multiplicity x count over every record.
    pub total: u128,
    /// Per root move (UCI, generation order): its paths' share of the total.
    pub divide: Vec<(String, u128)>,
    /// Records summed.
    pub records: usize,
    /// Zobrist seeds the records were counted with.
    pub zobrist_seeds: BTreeSet<u64>,
    /// Sum of the records' count times, seconds (CPU-independent wall time
    /// of each record; runs in parallel overlap).
    pub record_seconds: f64,
}

/// Sums `job` when every unit is complete; otherwise lists the units that
/// are not, as `(index, problem)`.
pub fn merge(job: &Job) -> Result<Result<MergeOutcome, Vec<(usize, UnitProblem)>>, JobError> {
    let units = collect(job)?;
    let problems: Vec<(usize, UnitProblem)> = units
        .iter()
        .enumerate()
        .filter_map(|(i, u)| u.as_ref().err().map(|p| (i, p.clone())))
        .collect();
    if !problems.is_empty() {
        return Ok(Err(problems));
    }
    let m = &job.manifest;
    let mut divide: Vec<(String, u128)> = m.root_moves.iter().map(|mv| (mv.clone(), 0)).collect();
    let mut outcome = MergeOutcome {
        total: 0,
        divide: Vec::new(),
        records: 0,
        zobrist_seeds: BTreeSet::new(),
        record_seconds: 0.0,
    };
    let mut paths = 0u128;
    for unit in units.into_iter().flatten() {
        for (record, result) in unit.records.iter().zip(&unit.results) {
            outcome.total += result.product;
            outcome.records += 1;
            outcome.zobrist_seeds.insert(result.zobrist_seed);
            outcome.record_seconds += result.seconds;
            paths += record.multiplicity;
            for share in &record.roots {
                let Some(slot) = divide.iter_mut().find(|(mv, _)| *mv == share.mv) else {
                    return Err(JobError::BadUnit {
                        path: job.unit_path(record.unit),
                        message: format!(
                            "record {}: root move {} is not a root move of the manifest",
                            record.index, share.mv
                        ),
                    });
                };
                slot.1 += share.paths * result.count;
            }
        }
    }
    if paths != m.paths || outcome.records as u64 != m.positions {
        return Err(JobError::BadManifest {
            path: job.dir.join(super::MANIFEST_FILE),
            message: format!(
                "the units hold {} positions and {paths} paths, the manifest says {} and {}",
                outcome.records, m.positions, m.paths
            ),
        });
    }
    outcome.divide = divide;
    Ok(Ok(outcome))
}

/// A record counted differently by two runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// Unit index.
    pub unit: usize,
    /// Record index in the unit.
    pub index: usize,
    /// The position.
    pub fen: String,
    /// Plies counted.
    pub depth: u32,
    /// Count of the first run.
    #[serde(with = "super::decimal")]
    pub count: u128,
    /// Count of the second run.
    #[serde(with = "super::decimal")]
    pub other_count: u128,
}

/// Two runs of one split compared.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyOutcome {
    /// The first run merged.
    pub first: MergeOutcome,
    /// The second run merged.
    pub second: MergeOutcome,
    /// Records compared.
    pub records: usize,
    /// Records counted with the same Zobrist seed in both runs (a key
    /// collision would repeat itself there).
    pub same_seed_records: usize,
    /// Every record whose counts differ.
    pub differences: Vec<Difference>,
}

/// Compares two complete runs of the same split record by record. The
/// inner error lists the incomplete units of either run, with its directory.
#[allow(clippy::type_complexity)]
pub fn verify(
    a: &Job,
    b: &Job,
) -> Result<Result<VerifyOutcome, Vec<(std::path::PathBuf, usize, UnitProblem)>>, JobError> {
    if a.manifest.job_id != b.manifest.job_id {
        return Err(JobError::DifferentJobs {
            a: a.dir.clone(),
            a_id: a.manifest.job_id.clone(),
            b: b.dir.clone(),
            b_id: b.manifest.job_id.clone(),
        });
    }
    let first = merge(a)?;
    let second = merge(b)?;
    let (first, second) = match (first, second) {
        (Ok(x), Ok(y)) => (x, y),
        (x, y) => {
            let mut all = Vec::new();
            for (job, r) in [(a, x), (b, y)] {
                if let Err(problems) = r {
                    all.extend(problems.into_iter().map(|(i, p)| (job.dir.clone(), i, p)));
                }
            }
            return Ok(Err(all));
        }
    };
    // Both complete: read the results again, unit by unit, to compare.
    let ua = collect(a)?;
    let ub = collect(b)?;
    let mut outcome = VerifyOutcome {
        first,
        second,
        records: 0,
        same_seed_records: 0,
        differences: Vec::new(),
    };
    for (x, y) in ua.into_iter().flatten().zip(ub.into_iter().flatten()) {
        for (rx, ry) in x.results.iter().zip(&y.results) {
            outcome.records += 1;
            if rx.zobrist_seed == ry.zobrist_seed && rx.hash_bytes > 0 && ry.hash_bytes > 0 {
                outcome.same_seed_records += 1;
            }
            if rx.count != ry.count {
                outcome.differences.push(Difference {
                    unit: rx.unit,
                    index: rx.index,
                    fen: rx.fen.clone(),
                    depth: rx.depth,
                    count: rx.count,
                    other_count: ry.count,
                });
            }
        }
    }
    Ok(Ok(outcome))
}
