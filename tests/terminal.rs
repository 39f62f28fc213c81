//! Behaviour that depends on the terminal: the progress bar (through a pty
//! made by `script`), colour, Ctrl-C and broken pipes.

use std::process::{Command, Output, Stdio};

use crate::common::{perft_bin, repo_path, run_perft, stderr, stdout};

/// Runs `shell_command` under `script`, so it sees a terminal on
/// stdin/stdout/stderr; returns everything the terminal received.
fn in_pty(shell_command: &str, env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new("script");
    cmd.args(["-qec", shell_command, "/dev/null"])
        .stdin(Stdio::null())
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .expect("run `script` (util-linux) to get a pseudo-terminal");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `count 8` on one thread without the perft table (8.5e10 leaves: minutes
/// on any machine, so the signal always lands mid-run; with the default
/// table, depth 7 finished within the 2.5 s on a fast CI machine).
const LONG_COUNT: &str = "count 8 --threads 1 --no-hash";

/// [`LONG_COUNT`] stopped by SIGINT after 2.5 s, as Ctrl-C would.
/// (`--foreground`: one signal, to perft only, not a second one to the
/// process group.)
const INTERRUPTED_COUNT: &str = "timeout --foreground --preserve-status -s INT 2.5";

#[test]
fn progress_bar_appears_on_a_terminal_and_ctrl_c_gives_a_partial_result() {
    let report = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("perft-pty-{}.txt", std::process::id()));
    let screen = in_pty(
        &format!(
            "{INTERRUPTED_COUNT} {} {LONG_COUNT} > {}; echo \"exit=$?\"",
            perft_bin(),
            report.display()
        ),
        &[],
    );
    assert!(
        screen.contains("root moves") && screen.contains("perft 8 "),
        "no progress bar on the terminal: {screen:?}"
    );
    assert!(screen.contains("exit=130"), "{screen:?}");
    assert!(screen.contains("warning: interrupted: "), "{screen:?}");
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains("(PARTIAL: interrupted after "), "{text}");
    let _ = std::fs::remove_file(report);
}

#[test]
fn piped_stderr_gets_no_progress() {
    // Interrupted like the test above, but with stderr a pipe: only the
    // partial-result warning, no bar.
    let out: Output = Command::new("timeout")
        .args([
            "--foreground",
            "--preserve-status",
            "-s",
            "INT",
            "2.5",
            perft_bin(),
        ])
        .args(LONG_COUNT.split(' '))
        .env("TERM", "xterm-256color")
        .output()
        .expect("run timeout");
    assert_eq!(out.status.code(), Some(130));
    let err = stderr(&out);
    assert!(err.starts_with("warning: interrupted: "), "{err:?}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");
    assert!(stdout(&out).contains("PARTIAL"));
    // A complete run longer than the bar's 1 s delay: stderr stays empty.
    // (The count is CPW position 4, D6 = 706,045,033.)
    let out = run_perft(&["count", "6", "cpw4", "--threads", "1", "--no-hash"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("706,045,033"));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn json_and_quiet_hide_the_bar_even_on_a_terminal() {
    for flag in ["--json", "--quiet"] {
        let screen = in_pty(
            &format!(
                "{INTERRUPTED_COUNT} {} {LONG_COUNT} {flag} 2>&1 >/dev/null",
                perft_bin()
            ),
            &[],
        );
        assert!(
            !screen.contains("perft 8 [") && !screen.contains("\x1b[2K"),
            "{flag}: {screen:?}"
        );
    }
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color_or_dumb_term() {
    let standard = repo_path("positions/standard.epd");
    let cmd = format!("{} suite {} --max-depth 2", perft_bin(), standard.display());
    let coloured = in_pty(&cmd, &[]);
    assert!(coloured.contains("\x1b[32mok\x1b[0m"), "{coloured:?}");
    for env in [("NO_COLOR", "1"), ("TERM", "dumb")] {
        let plain = in_pty(&cmd, &[env]);
        assert!(plain.contains("ok    "), "{env:?}: {plain:?}");
        assert!(!plain.contains('\x1b'), "{env:?}: {plain:?}");
    }
    // Piped: no colour.
    let out = run_perft(&["suite", standard.to_str().unwrap(), "--max-depth", "2"]);
    assert!(!stdout(&out).contains('\x1b'));
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    // `true` exits without reading, so perft's writes hit a closed pipe.
    for args in ["divide 4", "suite positions/tricky.epd --max-depth 2"] {
        let out = Command::new("bash")
            .args([
                "-c",
                &format!(
                    "cd {} && {} {args} | true; exit ${{PIPESTATUS[0]}}",
                    repo_path("").display(),
                    perft_bin()
                ),
            ])
            .output()
            .expect("bash");
        assert_eq!(out.status.code(), Some(0), "{args}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{args}: {}", stderr(&out));
    }
}

#[test]
fn a_signal_sent_twice_at_once_counts_as_one_ctrl_c() {
    // Without --foreground, `timeout` signals perft and then its whole
    // process group: two SIGINTs within microseconds. That is one Ctrl-C, so
    // the partial report must still be printed.
    let out: Output = Command::new("timeout")
        .args(["--preserve-status", "-s", "INT", "1.5", perft_bin()])
        .args(LONG_COUNT.split(' '))
        .output()
        .expect("run timeout");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(PARTIAL: interrupted after "),
        "{}",
        stdout(&out)
    );
    assert!(
        !stderr(&out).contains("interrupted again"),
        "{}",
        stderr(&out)
    );
}

/// Removes ANSI escape sequences (`ESC [ ... letter`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn the_bar_shows_no_eta_before_an_estimate_and_fits_a_narrow_terminal() {
    // 60 columns: a bar wider than the terminal would wrap, and clearing it
    // (at the end, after Ctrl-C) would leave its first line behind.
    let screen = in_pty(
        &format!(
            "stty rows 24 cols 60; {INTERRUPTED_COUNT} {} {LONG_COUNT} > /dev/null",
            perft_bin()
        ),
        &[],
    );
    let plain = strip_ansi(&screen);
    assert!(plain.contains("0/20 root moves"), "{plain:?}");
    assert!(plain.contains("ETA estimating"), "{plain:?}");
    for draw in plain.split('\r').filter(|d| d.contains("root moves,")) {
        assert!(
            !(draw.contains("0/20 root moves") && draw.contains("ETA 0s")),
            "{draw:?}"
        );
        assert!(draw.trim_end().chars().count() <= 60, "{draw:?}");
    }
    // The last bar drawn is cleared before the warning is printed.
    let last_bar = screen.rfind("root moves,").unwrap();
    let warning = screen.rfind("warning: interrupted").unwrap();
    assert!(screen[last_bar..warning].contains("\x1b[2K"), "{screen:?}");
}
