//! Counting units: result files, resumption, torn and corrupt lines.
//!
//! A result file is append-only while a unit runs: one sealed line per
//! record, flushed and fsynced before the next record starts. On a restart
//! the file is scanned; records already done are kept, and if any line is
//! torn (no final newline), fails its checksum, does not match its unit
//! record or repeats one, the file is rewritten (to a temporary file, then
//! renamed) with the good lines only and the rest is counted again. The
//! unit file itself is locked (`flock`) while a unit runs, so two processes
//! never write one result file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::split::{sync_dir, write_synced};
use super::{
    Job, JobError, ResultLine, ResultRecord, UnitRecord, UnitSummary, io_err, seal, sha256_hex,
    unseal,
};
use crate::chess::position::Position;
use crate::chess::zobrist::Zobrist;
use crate::perft::count::{Control, Perft};

/// What a scan of a result file found.
#[derive(Debug)]
pub(super) struct Scan {
    /// The result file exists.
    pub exists: bool,
    /// Good record lines by record index: the record and its line text.
    pub done: Vec<Option<(ResultRecord, String)>>,
    /// Problems, as `line N: what`.
    pub problems: Vec<String>,
    /// A valid summary, last in the file, matching the records.
    pub summary: Option<UnitSummary>,
    /// A summary line was present (valid or not).
    pub summary_seen: bool,
}

impl Scan {
    /// Every record done and summarised, no problem.
    pub fn complete(&self) -> bool {
        self.problems.is_empty() && self.summary.is_some() && self.done.iter().all(Option::is_some)
    }

    /// Records done.
    pub fn done_count(&self) -> usize {
        self.done.iter().filter(|d| d.is_some()).count()
    }
}

/// The record lines in index order, with their newlines.
fn record_lines(done: &[Option<(ResultRecord, String)>]) -> String {
    let mut text = String::new();
    for (_, line) in done.iter().flatten() {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Scans unit `index`'s result file against its `records`. A line naming
/// another job is an error (exit 2); everything else wrong is a problem.
pub(super) fn scan(job: &Job, index: usize, records: &[UnitRecord]) -> Result<Scan, JobError> {
    let path = job.result_path(index);
    let mut scan = Scan {
        exists: path.exists(),
        done: vec![None; records.len()],
        problems: Vec::new(),
        summary: None,
        summary_seen: false,
    };
    if !scan.exists {
        return Ok(scan);
    }
    let bytes = std::fs::read(&path).map_err(io_err(&path))?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.split('\n').collect();
    // A complete file ends with a newline: the split leaves "" last.
    let torn = lines.pop().filter(|l| !l.is_empty());
    let mut summary_at = None;
    for (n, line) in lines.iter().enumerate() {
        let line_no = n + 1;
        let body = match unseal(line) {
            Ok(body) => body,
            Err(e) => {
                job.check_job_of(line, &path, line_no)?;
                scan.problems.push(format!("line {line_no}: {e}"));
                continue;
            }
        };
        let parsed: ResultLine = match serde_json::from_str(&body) {
            Ok(p) => p,
            Err(e) => {
                job.check_job_of(line, &path, line_no)?;
                scan.problems
                    .push(format!("line {line_no}: not a result line: {e}"));
                continue;
            }
        };
        let (line_job, line_unit) = match &parsed {
            ResultLine::Record(r) => (&r.job, r.unit),
            ResultLine::Summary(s) => (&s.job, s.unit),
        };
        if *line_job != job.manifest.job_id {
            return Err(JobError::ForeignJob {
                path,
                line: line_no,
                found: line_job.clone(),
                expected: job.manifest.job_id.clone(),
            });
        }
        if line_unit != index {
            scan.problems.push(format!(
                "line {line_no}: belongs to unit {line_unit}, not {index}"
            ));
            continue;
        }
        match parsed {
            ResultLine::Record(r) => {
                let Some(want) = records.get(r.index) else {
                    scan.problems.push(format!(
                        "line {line_no}: record {} does not exist in the unit",
                        r.index
                    ));
                    continue;
                };
                if r.fen != want.fen || r.depth != want.depth || r.multiplicity != want.multiplicity
                {
                    scan.problems.push(format!(
                        "line {line_no}: record {} does not match the unit file",
                        r.index
                    ));
                } else if r.multiplicity.checked_mul(r.count) != Some(r.product) {
                    scan.problems.push(format!(
                        "line {line_no}: product is not multiplicity x count"
                    ));
                } else if scan.done[r.index].is_some() {
                    scan.problems
                        .push(format!("line {line_no}: record {} repeated", r.index));
                } else {
                    let i = r.index;
                    scan.done[i] = Some((r, line.to_string()));
                }
            }
            ResultLine::Summary(s) => {
                scan.summary_seen = true;
                summary_at = Some(line_no);
                scan.summary = Some(s);
            }
        }
    }
    if let Some(torn) = torn {
        scan.problems.push(format!(
            "line {}: torn (no end of line; {} bytes)",
            lines.len() + 1,
            torn.len()
        ));
    }
    if let Some(s) = scan.summary.take() {
        let sum: u128 = scan.done.iter().flatten().map(|(r, _)| r.product).sum();
        let sha = sha256_hex(record_lines(&scan.done).as_bytes());
        let last = summary_at == Some(lines.len());
        if !last {
            scan.problems
                .push("summary line is not the last line".to_string());
        } else if s.records != records.len()
            || scan.done.iter().any(Option::is_none)
            || s.sum != sum
            || s.results_sha256 != sha
        {
            scan.problems
                .push("summary does not match the record lines".to_string());
        } else {
            scan.summary = Some(s);
        }
    }
    Ok(scan)
}

/// What [`run_unit`] did.
#[derive(Clone, Debug)]
pub struct UnitRunOutcome {
    /// The unit index.
    pub unit: usize,
    /// Records in the unit.
    pub records: usize,
    /// Records found done in the result file.
    pub done_before: usize,
    /// Records counted by this run.
    pub counted: usize,
    /// Problems found in the result file and repaired (their records redone).
    pub repaired: Vec<String>,
    /// All records done and the summary written.
    pub complete: bool,
    /// Sum of the unit's products so far.
    pub sum: u128,
    /// Leaves counted by this run (sum of its counts).
    pub nodes: u128,
    /// Wall time of this run, seconds.
    pub seconds: f64,
}

/// Holds the unit's lock for as long as it lives.
struct UnitLock {
    _file: File,
}

fn lock_unit(job: &Job, index: usize) -> Result<UnitLock, JobError> {
    let path = job.unit_path(index);
    let file = File::open(&path).map_err(io_err(&path))?;
    match file.try_lock() {
        Ok(()) => Ok(UnitLock { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => Err(JobError::Locked(path)),
        Err(std::fs::TryLockError::Error(e)) => Err(JobError::Io { path, source: e }),
    }
}

/// Counts unit `index` of `job` with `perft`: skips done records, repairs
/// the result file, appends one fsynced line per record, then the summary.
/// Stops between records (nothing partial is written) once `stop` is set,
/// or inside a record (which is then not written). `on_record(record, counted)`
/// is called for every record done by this run.
pub fn run_unit(
    job: &Job,
    index: usize,
    perft: &Perft,
    stop: &AtomicBool,
    on_record: &dyn Fn(&UnitRecord),
) -> Result<UnitRunOutcome, JobError> {
    let start = Instant::now();
    let records = job.load_unit(index)?;
    let _lock = lock_unit(job, index)?;
    let mut scan = scan(job, index, &records)?;
    let done_before = scan.done_count();
    let mut outcome = UnitRunOutcome {
        unit: index,
        records: records.len(),
        done_before,
        counted: 0,
        repaired: Vec::new(),
        complete: false,
        sum: 0,
        nodes: 0,
        seconds: 0.0,
    };
    if scan.complete() {
        outcome.complete = true;
        outcome.sum = scan.done.iter().flatten().map(|(r, _)| r.product).sum();
        outcome.seconds = start.elapsed().as_secs_f64();
        return Ok(outcome);
    }
    let path = job.result_path(index);
    if !scan.problems.is_empty() || scan.summary_seen {
        // Keep the good lines only: written aside, then renamed over.
        let tmp: PathBuf = job.dir.join(format!(
            "{}.tmp",
            path.file_name().unwrap_or_default().to_string_lossy()
        ));
        write_synced(&tmp, record_lines(&scan.done).as_bytes())?;
        std::fs::rename(&tmp, &path).map_err(io_err(&path))?;
        sync_dir(&job.dir);
        outcome.repaired = std::mem::take(&mut scan.problems);
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io_err(&path))?;
    let seed = perft.config().zobrist_seed;
    let hash_bytes = u64::try_from(perft.config().hash_bytes).unwrap_or(u64::MAX);
    for record in &records {
        if scan.done[record.index].is_some() {
            continue;
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let begun = Instant::now();
        let Some(count) = count_record(job, record, perft, stop)? else {
            break;
        };
        let result = ResultRecord {
            job: job.manifest.job_id.clone(),
            unit: index,
            index: record.index,
            fen: record.fen.clone(),
            depth: record.depth,
            multiplicity: record.multiplicity,
            count,
            product: record.multiplicity * count,
            zobrist_seed: seed,
            hash_bytes,
            seconds: begun.elapsed().as_secs_f64(),
        };
        let line = seal(&serde_json::to_string(&ResultLine::Record(result.clone())).expect("json"));
        append_synced(&mut file, &line, &path)?;
        scan.done[record.index] = Some((result, line));
        outcome.counted += 1;
        outcome.nodes += count;
        on_record(record);
    }
    outcome.sum = scan.done.iter().flatten().map(|(r, _)| r.product).sum();
    if scan.done.iter().all(Option::is_some) {
        let summary = UnitSummary {
            job: job.manifest.job_id.clone(),
            unit: index,
            records: records.len(),
            sum: outcome.sum,
            results_sha256: sha256_hex(record_lines(&scan.done).as_bytes()),
        };
        let line = seal(&serde_json::to_string(&ResultLine::Summary(summary)).expect("json"));
        append_synced(&mut file, &line, &path)?;
        outcome.complete = true;
    }
    outcome.seconds = start.elapsed().as_secs_f64();
    Ok(outcome)
}

/// Appends `line` and a newline, then fsyncs.
fn append_synced(file: &mut File, line: &str, path: &std::path::Path) -> Result<(), JobError> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    file.write_all(&bytes).map_err(io_err(path))?;
    file.flush().map_err(io_err(path))?;
    file.sync_data().map_err(io_err(path))
}

/// perft of one record; `None` if stopped before it finished.
fn count_record(
    job: &Job,
    record: &UnitRecord,
    perft: &Perft,
    stop: &AtomicBool,
) -> Result<Option<u128>, JobError> {
    let pos = Position::from_fen_with(&record.fen, job.manifest.chess960, Zobrist::DEFAULT)
        .map_err(|e| JobError::BadUnit {
            path: job.unit_path(record.unit),
            message: format!("record {}: {e}", record.index),
        })?;
    if record.depth == 0 {
        return Ok(Some(1));
    }
    let outcome = perft.divide(
        &pos,
        record.depth,
        Control {
            stop: Some(stop),
            on_root_move: None,
        },
    );
    Ok(outcome.complete.then_some(outcome.nodes))
}

/// Work left in a job: for each unit, the records not yet done.
#[derive(Clone, Debug, Default)]
pub struct PendingWork {
    /// Units not complete.
    pub units: Vec<usize>,
    /// Records not done, over all units.
    pub records: usize,
    /// Records in the job.
    pub total_records: usize,
    /// Estimated work not done.
    pub estimate: u128,
    /// Estimated work of the whole job.
    pub total_estimate: u128,
}

/// Scans every unit of `job` for the work [`run_job`] would do.
pub fn pending_work(job: &Job) -> Result<PendingWork, JobError> {
    let mut work = PendingWork::default();
    for index in 0..job.units() {
        let records = job.load_unit(index)?;
        let scan = scan(job, index, &records)?;
        work.total_records += records.len();
        work.total_estimate += records.iter().map(|r| u128::from(r.estimate)).sum::<u128>();
        if scan.complete() {
            continue;
        }
        work.units.push(index);
        for r in &records {
            if scan.done[r.index].is_none() {
                work.records += 1;
                work.estimate += u128::from(r.estimate);
            }
        }
    }
    Ok(work)
}

/// What [`run_job`] did.
#[derive(Clone, Debug, Default)]
pub struct RunOutcome {
    /// Units in the job.
    pub units: usize,
    /// Units complete at the end.
    pub complete_units: usize,
    /// Units complete before this run.
    pub complete_before: usize,
    /// Records counted by this run.
    pub counted: usize,
    /// Leaves counted by this run.
    pub nodes: u128,
    /// Result-file problems repaired, as `unit N: line M: what`.
    pub repaired: Vec<String>,
    /// Stopped before every unit was complete.
    pub stopped: bool,
}

/// Runs every incomplete unit of `job`, in index order, with one driver (so
/// its perft table carries over from unit to unit). Stops at `stop`.
pub fn run_job(
    job: &Job,
    perft: &Perft,
    stop: &AtomicBool,
    on_record: &dyn Fn(&UnitRecord),
) -> Result<RunOutcome, JobError> {
    let work = pending_work(job)?;
    let mut outcome = RunOutcome {
        units: job.units(),
        complete_before: job.units() - work.units.len(),
        ..RunOutcome::default()
    };
    outcome.complete_units = outcome.complete_before;
    for &index in &work.units {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let o = run_unit(job, index, perft, stop, on_record)?;
        outcome.counted += o.counted;
        outcome.nodes += o.nodes;
        outcome
            .repaired
            .extend(o.repaired.iter().map(|p| format!("unit {index}: {p}")));
        if o.complete {
            outcome.complete_units += 1;
        }
    }
    outcome.stopped = outcome.complete_units < outcome.units;
    Ok(outcome)
}
