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
    let message = lines
        .next()
        .unwrap_or("error: invalid arguments")
        .to_string();
    // Keep clap's help in the one line: the valid values and its "did you
    // mean" tips (`--thread` -> `--threads`).
    let mut extra = String::new();
    let mut usage = String::new();
    // A message ending in ':' lists what it is about on the next lines
    // (`the following required arguments were not provided:` then
    // `--engine <COMMAND>`): keep them.
    let mut listed: Vec<&str> = Vec::new();
    let lists = message.ends_with(':');
    for line in lines {
        if lists && usage.is_empty() && (line.starts_with('-') || line.starts_with('<')) {
            listed.push(line);
            continue;
        }
        if let Some(values) = line.strip_prefix("[possible values: ") {
            extra.push_str(&format!("; valid values: {}", values.trim_end_matches(']')));
        } else if let Some(tip) = line.strip_prefix("tip: ") {
            let similar = tip
                .strip_prefix("a similar argument exists: ")
                .or_else(|| tip.strip_prefix("a similar value exists: "));
            match similar {
                Some(name) => extra.push_str(&format!("; did you mean {name}?")),
                None => extra.push_str(&format!("; {tip}")),
            }
        } else if let Some(u) = line.strip_prefix("Usage: ") {
            usage = format!("; usage: {u}");
        }
    }
    let message = if listed.is_empty() {
        message
    } else {
        format!("{message} {}", listed.join(", "))
    };
    eprintln!("{message}{extra}{usage} (see --help)");
    ExitCode::from(perft::error::EXIT_USAGE)
}
