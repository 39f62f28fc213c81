//! `perft run`: count every incomplete unit of a job on this machine.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::config::{EngineArgs, hash_setting, shell_quote};
use super::output::write_out;
use super::progress::{Interrupt, ProgressFactory};
use crate::error::{EXIT_INTERRUPTED, EXIT_OK, Error};
use crate::perft::units::{Job, merge, pending_work, run_job};
use crate::report::thousands;

/// `perft run` arguments.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The job directory made by `perft split`.
    pub dir: PathBuf,
    /// Threads and hash.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Runs `perft run`.
pub fn run_run(args: RunArgs, quiet: bool) -> Result<u8, Error> {
    let start = Instant::now();
    let job = Job::open(&args.dir)?;
    let perft = args
        .engine
        .build(job.manifest.depth - job.manifest.split_ply)?;
    let work = pending_work(&job)?;
    // The bar counts estimated work, scaled to fit u64.
    let shift = (128 - work.estimate.leading_zeros()).saturating_sub(48);
    let progress = ProgressFactory::new(false, quiet);
    let bar = progress.work(
        (work.estimate >> shift) as u64,
        &format!(
            "perft {} ({} records left)",
            job.manifest.depth,
            thousands(work.records as u128)
        ),
    );
    let done = std::sync::atomic::AtomicUsize::new(0);
    let on_record = |r: &crate::perft::units::UnitRecord| {
        bar.inc_by((u128::from(r.estimate) >> shift) as u64);
        let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        bar.set_message(&format!(
            "perft {} ({}/{} records)",
            job.manifest.depth,
            thousands(d as u128),
            thousands(work.records as u128)
        ));
    };
    if !quiet {
        eprintln!(
            "run: {} of {} units to do ({} of {} records), {} threads, table {}",
            work.units.len(),
            job.units(),
            thousands(work.records as u128),
            thousands(work.total_records as u128),
            perft.config().threads,
            hash_setting(perft.config()).unwrap_or_default()
        );
    }
    let interrupt = Interrupt::install();
    let o = run_job(&job, &perft, interrupt.flag(), &on_record)?;
    drop(bar);
    if !quiet {
        for p in &o.repaired {
            eprintln!("warning: {p}: the record is counted again");
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let setup = perft
        .table()
        .map(|t| format!(", {:.1} s of it the table's set-up", t.setup().seconds))
        .unwrap_or_default();
    let dir = shell_quote(&args.dir.display().to_string());
    if o.stopped {
        write_out(&format!(
            "INTERRUPTED: {} of {} units complete, {} records counted now, {seconds:.1} s{setup}; run `perft run {dir}` again to resume\n",
            o.complete_units, o.units, o.counted
        ))?;
        return Ok(EXIT_INTERRUPTED);
    }
    let total = match merge(&job)? {
        Ok(m) => format!(
            "total {} (`perft merge {dir}` for the divide)",
            thousands(m.total)
        ),
        Err(problems) => format!(
            "{} units not complete: see `perft merge {dir}`",
            problems.len()
        ),
    };
    write_out(&format!(
        "all {} units complete ({} run now, {} records counted, {seconds:.1} s{setup}): {total}\n",
        o.units,
        o.units - o.complete_before,
        thousands(o.counted as u128)
    ))?;
    Ok(EXIT_OK)
}
