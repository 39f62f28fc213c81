//! `perft merge`: sum a job's units, optionally compare with a second run.

use std::path::PathBuf;

use clap::Args;

use super::output::{write_json, write_out};
use crate::error::{EXIT_MISMATCH, EXIT_OK, Error};
use crate::perft::units::{Job, UnitProblem, merge, verify};
use crate::report::{Header, MergeReport, UnitStatusEntry, VerifyReport};

/// `perft merge` arguments.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The job directory.
    pub dir: PathBuf,
    /// A second run of the same split (made with another --zobrist-seed):
    /// compare record by record and name every position that differs.
    #[arg(long, value_name = "DIR2")]
    pub verify: Option<PathBuf>,
    /// Print one JSON object on stdout (and nothing else).
    #[arg(long)]
    pub json: bool,
}

fn entries(dir: &std::path::Path, problems: Vec<(usize, UnitProblem)>) -> Vec<UnitStatusEntry> {
    problems
        .into_iter()
        .map(|(unit, problem)| UnitStatusEntry {
            dir: dir.display().to_string(),
            unit,
            message: problem.to_string(),
            problem,
        })
        .collect()
}

/// Runs `perft merge`.
pub fn run_merge(args: MergeArgs, quiet: bool) -> Result<u8, Error> {
    let job = Job::open(&args.dir)?;
    let other = args.verify.as_deref().map(Job::open).transpose()?;
    let m = &job.manifest;
    let mut report = MergeReport {
        header: Header::new("merge"),
        dir: args.dir.display().to_string(),
        job_id: m.job_id.clone(),
        fen: m.root_fen.clone(),
        depth: m.depth,
        split_ply: m.split_ply,
        units: job.units(),
        records: m.positions,
        complete: false,
        nodes: None,
        nodes_str: None,
        moves: Vec::new(),
        zobrist_seeds: Vec::new(),
        record_seconds: 0.0,
        incomplete: Vec::new(),
        verify: None,
    };
    let mut code = EXIT_OK;
    match &other {
        None => match merge(&job)? {
            Ok(o) => report.set_outcome(&o),
            Err(problems) => {
                report.incomplete = entries(&args.dir, problems);
                code = EXIT_MISMATCH;
            }
        },
        Some(b) => match verify(&job, b)? {
            Ok(v) => {
                report.set_outcome(&v.first);
                if !v.differences.is_empty() || v.first.total != v.second.total {
                    code = EXIT_MISMATCH;
                }
                if v.same_seed_records > 0 && !quiet && !args.json {
                    eprintln!(
                        "warning: {} records were counted with the same Zobrist seed in both runs: a key collision there would repeat itself (use another --zobrist-seed for the second run)",
                        v.same_seed_records
                    );
                }
                report.verify = Some(VerifyReport {
                    dir: b.dir.display().to_string(),
                    nodes: v.second.total,
                    nodes_str: v.second.total.to_string(),
                    zobrist_seeds: v.second.zobrist_seeds.iter().copied().collect(),
                    records: v.records,
                    same_seed_records: v.same_seed_records,
                    differences: v.differences,
                });
            }
            Err(problems) => {
                report.incomplete = problems
                    .into_iter()
                    .flat_map(|(dir, unit, p)| entries(&dir, vec![(unit, p)]))
                    .collect();
                code = EXIT_MISMATCH;
            }
        },
    }
    if args.json {
        write_json(&report)?;
    } else if report.incomplete.is_empty() {
        write_out(&report.to_text())?;
    } else {
        // The list of incomplete units is the error message: stderr.
        eprint!("{}", report.to_text());
    }
    Ok(code)
}
