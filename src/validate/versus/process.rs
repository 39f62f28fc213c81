//! Running one program as a timed child process, and reading how loaded the
//! machine is.
//!
//! A run's time is the CPU time (user + system) of the whole process, from
//! `wait4`'s resource usage on Linux: other work on the machine disturbs it
//! far less than wall time, and every program (ours included) is measured
//! the same way, start-up and all. Wall time is recorded beside it. On other
//! systems only wall time is available and is used instead.
//!
//! Output goes to files in a scratch directory, not pipes, so a program that
//! is killed (timeout, Ctrl-C) or leaves a child behind cannot block us.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

/// A finished run.
#[derive(Clone, Debug)]
pub struct Finished {
    /// Exit code, when the process exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did (Unix).
    pub signal: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// User + system CPU seconds of the process and the children it waited
    /// for (`None` where the system does not report them).
    pub cpu_seconds: Option<f64>,
    /// Wall-clock seconds from spawn to exit.
    pub wall_seconds: f64,
}

impl Finished {
    /// True for exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// How it ended, for messages: `exit code 3`, `killed by signal 11`.
    pub fn status_text(&self) -> String {
        match (self.code, self.signal) {
            (Some(c), _) => format!("exit code {c}"),
            (None, Some(s)) => format!("killed by signal {s}"),
            (None, None) => "unknown status".to_string(),
        }
    }
}

/// Why a run has no result.
#[derive(Debug)]
pub enum RunFailure {
    /// The program could not be started.
    Spawn(std::io::Error),
    /// It ran longer than the timeout and was killed.
    Timeout(Duration),
    /// The stop flag was raised (Ctrl-C); the program was killed.
    Stopped,
    /// Reading its output failed.
    Io(std::io::Error),
}

/// Runs `program args` with `stdin` written to its standard input (closed
/// when `None`), in `cwd` (ours when `None`), its output captured in files
/// of `scratch`. Kills it after `timeout`, or when `stop` is raised.
pub fn run_timed(
    program: &Path,
    args: &[String],
    stdin: Option<&str>,
    cwd: Option<&Path>,
    scratch: &Path,
    timeout: Duration,
    stop: Option<&AtomicBool>,
) -> Result<Finished, RunFailure> {
    let out_path = scratch.join("stdout");
    let err_path = scratch.join("stderr");
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(File::create(&out_path).map_err(RunFailure::Io)?)
        .stderr(File::create(&err_path).map_err(RunFailure::Io)?);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(RunFailure::Spawn)?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A program that exits without reading its input is judged by its
        // exit status and output, not by this write.
        let _ = pipe.write_all(text.as_bytes());
    }
    let reaped = wait(&mut child, start, timeout, stop)?;
    let wall_seconds = reaped.at.map_or_else(
        || start.elapsed().as_secs_f64(),
        |t| t.duration_since(start).as_secs_f64(),
    );
    let read = |p: &PathBuf| {
        std::fs::read(p)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(RunFailure::Io)
    };
    Ok(Finished {
        code: reaped.code,
        signal: reaped.signal,
        stdout: read(&out_path)?,
        stderr: read(&err_path)?,
        cpu_seconds: reaped.cpu_seconds,
        wall_seconds,
    })
}

/// What waiting for a child gave.
#[derive(Debug, Default)]
struct Status {
    code: Option<i32>,
    signal: Option<i32>,
    cpu_seconds: Option<f64>,
    at: Option<Instant>,
}

/// Waits for child `pid` with `wait4`, which also returns its resource
/// usage: the only way to get one child's CPU time (std's `Child::wait`
/// does not give it, and `getrusage(RUSAGE_CHILDREN)` sums every child
/// ever waited for).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn reap(pid: u32) -> Status {
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `usage` are valid, exclusive pointers for the
        // call; `pid` is our own child, which nothing else waits for (its
        // `Child` is only ever killed, never waited on).
        let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if r == pid as libc::pid_t {
            break;
        }
        if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return Status::default();
    }
    let at = Some(Instant::now());
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Status {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        cpu_seconds: Some(secs(usage.ru_utime) + secs(usage.ru_stime)),
        at,
    }
}

/// Why a run started at `start` must be killed now, if it must.
fn must_end(start: Instant, timeout: Duration, stop: Option<&AtomicBool>) -> Option<RunFailure> {
    if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
        Some(RunFailure::Stopped)
    } else {
        (start.elapsed() >= timeout).then_some(RunFailure::Timeout(timeout))
    }
}

/// Waits for `child` (reaped by [`reap`] on a thread), killing it at
/// `timeout` or when `stop` is raised.
#[cfg(target_os = "linux")]
fn wait(
    child: &mut std::process::Child,
    start: Instant,
    timeout: Duration,
    stop: Option<&AtomicBool>,
) -> Result<Status, RunFailure> {
    use std::sync::mpsc::RecvTimeoutError;
    let (tx, rx) = std::sync::mpsc::channel();
    let pid = child.id();
    std::thread::spawn(move || {
        let _ = tx.send(reap(pid));
    });
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(r) => return Ok(r),
            Err(RecvTimeoutError::Disconnected) => return Ok(Status::default()),
            Err(RecvTimeoutError::Timeout) => {
                if let Some(why) = must_end(start, timeout, stop) {
                    let _ = child.kill();
                    let _ = rx.recv();
                    return Err(why);
                }
            }
        }
    }
}

/// Elsewhere: polls the exit status; no CPU time (wall time is used).
#[cfg(not(target_os = "linux"))]
fn wait(
    child: &mut std::process::Child,
    start: Instant,
    timeout: Duration,
    stop: Option<&AtomicBool>,
) -> Result<Status, RunFailure> {
    loop {
        if let Some(status) = child.try_wait().map_err(RunFailure::Io)? {
            return Ok(Status {
                code: status.code(),
                signal: None,
                cpu_seconds: None,
                at: Some(Instant::now()),
            });
        }
        if let Some(why) = must_end(start, timeout, stop) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(why);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// How loaded the machine is at one moment (Linux `/proc`).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LoadSample {
    /// 1-minute load average.
    pub load1: f64,
    /// 5-minute load average.
    pub load5: f64,
    /// Jiffies of all CPUs since boot (the `cpu` line of `/proc/stat`).
    #[serde(skip)]
    pub total_ticks: u64,
    /// Of those, idle (idle + iowait).
    #[serde(skip)]
    pub idle_ticks: u64,
    /// Of those, stolen by the hypervisor.
    #[serde(skip)]
    pub steal_ticks: u64,
}

impl LoadSample {
    /// Reads `/proc/loadavg` and `/proc/stat`; `None` where they do not
    /// exist.
    pub fn read() -> Option<LoadSample> {
        let avg = std::fs::read_to_string("/proc/loadavg").ok()?;
        let mut avg = avg.split_whitespace().map(|w| w.parse::<f64>().ok());
        let (load1, load5) = (avg.next()??, avg.next()??);
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let cpu = stat.lines().find(|l| l.starts_with("cpu "))?;
        let v: Vec<u64> = cpu
            .split_whitespace()
            .skip(1)
            .filter_map(|w| w.parse().ok())
            .collect();
        // user nice system idle iowait irq softirq steal (guest time is
        // already in user).
        Some(LoadSample {
            load1,
            load5,
            total_ticks: v.iter().take(8).sum(),
            idle_ticks: v.get(3)? + v.get(4).copied().unwrap_or(0),
            steal_ticks: v.get(7).copied().unwrap_or(0),
        })
    }

    /// The fraction of CPU time spent busy (not idle) between `self` and
    /// `later`, over all CPUs.
    pub fn busy_fraction(&self, later: &LoadSample) -> Option<f64> {
        let total = later.total_ticks.checked_sub(self.total_ticks)?;
        let idle = later.idle_ticks.saturating_sub(self.idle_ticks);
        (total > 0).then(|| total.saturating_sub(idle) as f64 / total as f64)
    }

    /// The fraction of CPU time stolen between `self` and `later`.
    pub fn steal_fraction(&self, later: &LoadSample) -> f64 {
        let total = later.total_ticks.saturating_sub(self.total_ticks);
        if total == 0 {
            0.0
        } else {
            later.steal_ticks.saturating_sub(self.steal_ticks) as f64 / total as f64
        }
    }
}
