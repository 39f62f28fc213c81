//! The `perft` binary: parse arguments, run, map the outcome to an exit code.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

fn main() -> ExitCode {
    // PERFT_CPU is checked before anything runs (even `--version`, which
    // names the path): an unknown path or one this CPU lacks is a usage error.
    if let Err(e) = perft::cli::check_cpu_env() {
        eprintln!("error: {e}");
        return ExitCode::from(perft::error::EXIT_USAGE);
    }
    let cli = match perft::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    match perft::cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// `--help`, `--version` and a missing subcommand print what clap prints; a
/// real usage error becomes one line on stderr (clap's message and the
/// usage line) with exit code 2.
fn usage_error(e: clap::Error) -> ExitCode {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let message = lines.next().unwrap_or("error: invalid arguments");
    let usage = lines
        .find_map(|l| l.strip_prefix("Usage: "))
        .map(|u| format!("; usage: {u}"))
        .unwrap_or_default();
    eprintln!("{message}{usage} (see --help)");
    ExitCode::from(perft::error::EXIT_USAGE)
}
