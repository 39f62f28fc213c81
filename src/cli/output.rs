//! Writing results: stdout for reports (text or JSON), stderr for warnings;
//! colour only on a terminal and never with `NO_COLOR` or `TERM=dumb`.

use std::io::Write;

use serde::Serialize;

use crate::error::Error;
use crate::report::Warning;
pub use crate::report::style::{Style, plain_terminal_requested};

/// Writes `text` to stdout and flushes (a closed pipe surfaces as an
/// [`Error::Io`] that `main` treats as success).
pub fn write_out(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes `value` as pretty JSON plus a final newline to stdout.
pub fn write_json<T: Serialize>(value: &T) -> Result<(), Error> {
    // Every count gets its `_str` twin; a count beyond 64 bits (which JSON
    // values cannot hold) keeps the twins the report itself carries.
    let mut text = match serde_json::to_value(value) {
        Ok(mut v) => {
            crate::report::add_str_twins(&mut v);
            serde_json::to_string_pretty(&v)?
        }
        Err(_) => serde_json::to_string_pretty(value)?,
    };
    text.push('\n');
    write_out(&text)
}

/// The warnings that apply to a timed run with `threads` workers;
/// `short_run` is the duration of a run the caller judged too short.
pub fn timing_warnings(threads: usize, short_run: Option<f64>) -> Vec<Warning> {
    let mut out = Vec::new();
    if cfg!(debug_assertions) {
        out.push(Warning::DebugBuild);
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads > cpus {
        out.push(Warning::ThreadsAboveCpus { threads, cpus });
    }
    if let Some(seconds) = short_run {
        out.push(Warning::ShortRun { seconds });
    }
    out
}

/// Prints warnings on stderr unless `quiet`.
pub fn emit_warnings(warnings: &[Warning], quiet: bool) {
    if quiet {
        return;
    }
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// A [`Warning::BusyMachine`] when other work keeps more than half a CPU
/// busy: Linux `/proc/stat` is sampled twice, 250 ms apart, just before the
/// run (a load average would also count our own previous runs).
pub fn busy_machine_warning() -> Option<Warning> {
    use crate::validate::versus::LoadSample;
    let first = LoadSample::read()?;
    std::thread::sleep(std::time::Duration::from_millis(250));
    let busy = first.busy_fraction(&LoadSample::read()?)?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let busy_cpus = busy * cpus as f64;
    (busy_cpus > 0.5).then_some(Warning::BusyMachine { busy_cpus, cpus })
}
