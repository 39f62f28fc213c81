//! Progress on stderr and stopping: the indicatif bar, Ctrl-C, timeouts.
//!
//! The bar appears only when it helps: stderr is a terminal, `TERM` is not
//! `dumb`, neither `--json` nor `--quiet` was given, and the run has lasted
//! about a second ([`SHOW_AFTER`]); a quick run leaves stderr untouched. It
//! counts root moves done out of the total, with an ETA from that rate.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::output::plain_terminal_requested;

/// A run shorter than this shows no progress at all.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Decides once whether progress may be drawn, and makes bars.
#[derive(Clone, Copy, Debug)]
pub struct ProgressFactory {
    enabled: bool,
}

impl ProgressFactory {
    /// Progress for this process: on only if stderr is a terminal, `TERM` is
    /// not `dumb`, and the command is neither `--json` nor `--quiet`.
    pub fn new(json: bool, quiet: bool) -> ProgressFactory {
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        ProgressFactory {
            enabled: !json && !quiet && !dumb && std::io::stderr().is_terminal(),
        }
    }

    /// A bar counting `total` root moves, labelled `label`.
    pub fn root_moves(&self, total: usize, label: &str) -> Progress {
        self.counter(total, "root moves", label)
    }

    /// A bar counting `total` things called `unit`, labelled `label`.
    pub fn counter(&self, total: usize, unit: &str, label: &str) -> Progress {
        let bar = if plain_terminal_requested() {
            "{bar:15}"
        } else {
            "{bar:15.cyan/blue}"
        };
        // The label is `wide_msg`, cut to what the terminal width leaves:
        // a bar that wrapped onto a second line could not be cleared whole
        // (after Ctrl-C or at the end) and left a stale line behind.
        let template = format!(
            "{{wide_msg}} [{bar}] {{pos}}/{{len}} {unit}, {{elapsed}}, ETA {{eta_or_wait}}"
        );
        let style = ProgressStyle::with_template(&template)
            .expect("valid template")
            .with_key(
                "eta_or_wait",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    // No ETA until something has finished: "0s" would be a lie.
                    let _ = if state.pos() == 0 {
                        write!(w, "estimating")
                    } else {
                        write!(w, "{:#}", indicatif::HumanDuration(state.eta()))
                    };
                },
            )
            .progress_chars("=> ");
        self.start(ProgressBar::new(total as u64).with_style(style), label)
    }

    /// A bar over `total` units of estimated work, shown as a percentage
    /// with an ETA from the rate so far; the label says what is counted.
    pub fn work(&self, total: u64, label: &str) -> Progress {
        let bar = if plain_terminal_requested() {
            "{bar:30}"
        } else {
            "{bar:30.cyan/blue}"
        };
        let template = format!("{{msg}} [{bar}] {{percent}}%, {{elapsed}} elapsed, ETA {{eta}}");
        let style = ProgressStyle::with_template(&template)
            .expect("valid template")
            .progress_chars("=> ");
        self.start(ProgressBar::new(total).with_style(style), label)
    }

    /// A spinner for work without a known size (waiting for an engine).
    pub fn spinner(&self, label: &str) -> Progress {
        let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid");
        self.start(ProgressBar::new_spinner().with_style(style), label)
    }

    fn start(&self, bar: ProgressBar, label: &str) -> Progress {
        bar.set_draw_target(ProgressDrawTarget::hidden());
        bar.set_message(label.to_string());
        if !self.enabled {
            return Progress { bar, shower: None };
        }
        // Show the bar only once the run has lasted SHOW_AFTER.
        let (tx, rx) = mpsc::channel::<()>();
        let shown = bar.clone();
        let thread = std::thread::spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(SHOW_AFTER) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(200));
            }
        });
        Progress {
            bar,
            shower: Some((tx, thread)),
        }
    }
}

/// A progress bar or spinner; cleared from the terminal when dropped.
pub struct Progress {
    bar: ProgressBar,
    shower: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl Progress {
    /// One more unit done.
    pub fn inc(&self) {
        self.bar.inc(1);
    }

    /// `n` more units done.
    pub fn inc_by(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Runs `f` with the bar hidden (to print lines above it).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Changes the label.
    pub fn set_message(&self, label: &str) {
        self.bar.set_message(label.to_string());
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some((tx, thread)) = self.shower.take() {
            let _ = tx.send(());
            let _ = thread.join();
        }
        self.bar.finish_and_clear();
    }
}

/// The Ctrl-C flag. The first Ctrl-C sets it, and running counts stop at the
/// next check and report partial results (exit 130); a second Ctrl-C exits
/// at once.
#[derive(Clone, Debug)]
pub struct Interrupt {
    flag: Arc<AtomicBool>,
}

impl Interrupt {
    /// Installs the Ctrl-C handler (once per process; a later call returns a
    /// flag that Ctrl-C does not set, with a warning on stderr).
    ///
    /// A second SIGINT ends the process at once, but only half a second or
    /// more after the first: tools such as `timeout` send one signal to the
    /// process and one to its process group, which must count as one Ctrl-C.
    pub fn install() -> Interrupt {
        let flag = Arc::new(AtomicBool::new(false));
        let handler_flag = Arc::clone(&flag);
        let first: std::sync::Mutex<Option<Instant>> = std::sync::Mutex::new(None);
        let installed = ctrlc::set_handler(move || {
            let mut first = first.lock().unwrap_or_else(|e| e.into_inner());
            match *first {
                None => {
                    *first = Some(Instant::now());
                    handler_flag.store(true, Ordering::SeqCst);
                }
                Some(at) if at.elapsed() >= Duration::from_millis(500) => {
                    // Clear a progress bar's line first: the process ends
                    // without dropping it.
                    let clear = if std::io::stderr().is_terminal() {
                        "\r\x1b[2K"
                    } else {
                        ""
                    };
                    eprintln!("{clear}interrupted again: exiting now");
                    std::process::exit(i32::from(crate::error::EXIT_INTERRUPTED));
                }
                Some(_) => {}
            }
        });
        if let Err(e) = installed {
            eprintln!("warning: Ctrl-C will end the process without a report: {e}");
        }
        Interrupt { flag }
    }

    /// True after Ctrl-C.
    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The flag itself, for `Control::stop`.
    pub fn flag(&self) -> &AtomicBool {
        &self.flag
    }
}

/// Why a run was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Ctrl-C.
    Interrupted,
    /// `--timeout` elapsed.
    Timeout,
}

/// Runs `f` with a stop flag raised on Ctrl-C or, with `timeout`, when it
/// elapses (a watcher thread checks every 10 ms, so the perft really stops).
/// Returns what `f` returned and why it was stopped, if it was.
pub fn with_stop<R>(
    interrupt: &Interrupt,
    timeout: Option<Duration>,
    f: impl FnOnce(&AtomicBool) -> R,
) -> (R, Option<StopReason>) {
    let Some(timeout) = timeout else {
        let r = f(interrupt.flag());
        return (r, interrupt.is_set().then_some(StopReason::Interrupted));
    };
    let stop = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let timed_out = AtomicBool::new(false);
    let start = Instant::now();
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if interrupt.is_set() {
                    stop.store(true, Ordering::SeqCst);
                } else if start.elapsed() >= timeout {
                    timed_out.store(true, Ordering::SeqCst);
                    stop.store(true, Ordering::SeqCst);
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        let r = f(&stop);
        done.store(true, Ordering::SeqCst);
        r
    });
    let reason = if interrupt.is_set() {
        Some(StopReason::Interrupted)
    } else if timed_out.load(Ordering::SeqCst) {
        Some(StopReason::Timeout)
    } else {
        None
    };
    (r, reason)
}
