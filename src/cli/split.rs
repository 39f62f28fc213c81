//! `perft split`: a deep perft as a job directory of work units.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::config::{PositionArgs, resolve_position, shell_quote};
use super::output::write_out;
use crate::error::{EXIT_OK, Error};
use crate::perft::units::{SplitSpec, split};
use crate::report::thousands;

/// `perft split` arguments.
#[derive(Debug, Args)]
pub struct SplitArgs {
    /// Total perft depth in plies.
    pub depth: u32,
    /// Position and moves.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Ply of the split: the unique positions this many plies below the root
    /// become the records (1 to DEPTH; 3 to 6 is typical).
    #[arg(long, value_name = "K")]
    pub split_ply: u32,
    /// Number of unit files to shard the records into (balanced by estimated work).
    #[arg(long, value_name = "U")]
    pub units: usize,
    /// The job directory to create (must not exist, or be empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Runs `perft split`.
pub fn run_split(args: SplitArgs, quiet: bool) -> Result<u8, Error> {
    let root = resolve_position(&args.position)?;
    let start = Instant::now();
    let spec = SplitSpec {
        root,
        depth: args.depth,
        split_ply: args.split_ply,
        units: args.units,
    };
    // Level by level on a terminal only (a deep split takes a while).
    let chatty = !quiet && std::io::stderr().is_terminal();
    let on_level = |ply: u32, positions: usize| {
        if chatty {
            eprintln!(
                "split: ply {ply}: {} unique positions",
                thousands(positions as u128)
            );
        }
    };
    let m = split(&spec, &args.out, &on_level)?;
    let dir = shell_quote(&args.out.display().to_string());
    let records: Vec<u64> = m.units.iter().map(|u| u.records).collect();
    write_out(&format!(
        "job {} in {}: perft {} of {}\n\
         split at ply {}: {} unique positions ({} paths = perft {}), {} units of {} to {} records, {:.2} s\n\
         next: perft run {dir}    (one machine; Ctrl-C and rerun to resume)\n\
         \x20  or: perft run-unit {dir} --index N    for N in 0..{}, then perft merge {dir}\n",
        m.job_id,
        args.out.display(),
        m.depth,
        m.root_fen,
        m.split_ply,
        thousands(u128::from(m.positions)),
        thousands(m.paths),
        m.split_ply,
        m.units.len(),
        records.iter().min().unwrap_or(&0),
        records.iter().max().unwrap_or(&0),
        start.elapsed().as_secs_f64(),
        m.units.len() - 1,
    ))?;
    Ok(EXIT_OK)
}
