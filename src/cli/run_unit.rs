//! `perft run-unit`: count one unit of a job, resumably.

use std::path::PathBuf;

use clap::Args;

use super::config::EngineArgs;
use super::output::write_out;
use super::progress::Interrupt;
use crate::error::{EXIT_INTERRUPTED, EXIT_OK, Error};
use crate::perft::units::{Job, result_file_name, run_unit};
use crate::report::thousands;

/// Environment variables `--index-from-env` reads, in order: Slurm array
/// jobs, then Kubernetes Indexed Jobs. Both are 0-based.
pub const INDEX_VARIABLES: [&str; 2] = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"];

/// `perft run-unit` arguments.
#[derive(Debug, Args)]
pub struct RunUnitArgs {
    /// The job directory made by `perft split`.
    pub dir: PathBuf,
    /// The unit to count, 0-based (unit-00000.jsonl is 0). See --index-base.
    #[arg(long, value_name = "N", required_unless_present = "index_from_env")]
    pub index: Option<usize>,
    /// Take the unit index from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX
    /// (Kubernetes Indexed Job), both 0-based.
    #[arg(long, conflicts_with = "index")]
    pub index_from_env: bool,
    /// What the first unit is called by the index given: 0 (default), or 1
    /// for GNU parallel's 1-based job number `{#}`.
    #[arg(long, value_name = "B", default_value_t = 0)]
    pub index_base: usize,
    /// Threads and hash.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The 0-based unit index the arguments give.
fn unit_index(args: &RunUnitArgs) -> Result<usize, Error> {
    let (given, source) = if let Some(i) = args.index {
        (i, "--index".to_string())
    } else {
        let (name, value) = INDEX_VARIABLES
            .iter()
            .find_map(|&v| std::env::var(v).ok().map(|x| (v, x)))
            .ok_or_else(|| {
                Error::Usage(format!(
                    "--index-from-env: neither {} is set",
                    INDEX_VARIABLES.join(" nor ")
                ))
            })?;
        let i = value.trim().parse::<usize>().map_err(|_| {
            Error::Usage(format!(
                "--index-from-env: {name}='{value}' is not a unit index"
            ))
        })?;
        (i, name.to_string())
    };
    given.checked_sub(args.index_base).ok_or_else(|| {
        Error::Usage(format!(
            "{source} {given} is below --index-base {}",
            args.index_base
        ))
    })
}

/// Runs `perft run-unit`.
pub fn run_run_unit(args: RunUnitArgs, quiet: bool) -> Result<u8, Error> {
    let job = Job::open(&args.dir)?;
    let index = unit_index(&args)?;
    job.check_index(index)?;
    let perft = args
        .engine
        .build(job.manifest.depth - job.manifest.split_ply)?;
    let interrupt = Interrupt::install();
    let o = run_unit(&job, index, &perft, interrupt.flag(), &|_| {})?;
    if !quiet {
        for p in &o.repaired {
            eprintln!(
                "warning: {}: {p}: the record is counted again",
                result_file_name(index)
            );
        }
    }
    let state = if o.complete {
        "complete"
    } else {
        "INTERRUPTED (run again to resume)"
    };
    let setup = perft
        .table()
        .map(|t| {
            format!(
                " (and {:.2} s before it to set up the table)",
                t.setup().seconds
            )
        })
        .unwrap_or_default();
    write_out(&format!(
        "unit {index}: {state}: {} records, {} done before, {} counted now, sum {}, {:.2} s{setup}\n",
        o.records,
        o.done_before,
        o.counted,
        thousands(o.sum),
        o.seconds
    ))?;
    Ok(if o.complete {
        EXIT_OK
    } else {
        EXIT_INTERRUPTED
    })
}
