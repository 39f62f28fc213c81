//! Colour in text reports: ANSI status colours only on a terminal, never
//! with `NO_COLOR` or `TERM=dumb`.

use std::io::IsTerminal;

/// True when the environment asks for no colour and no cursor tricks:
/// `NO_COLOR` set to anything non-empty (no-color.org), or `TERM=dumb`.
pub fn plain_terminal_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
        || std::env::var("TERM").is_ok_and(|t| t == "dumb")
}

/// ANSI colouring of status words in text output. Off unless stdout is a
/// terminal and neither `NO_COLOR` nor `TERM=dumb` is set.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    enabled: bool,
}

impl Style {
    /// The style for stdout in this environment.
    pub fn stdout() -> Style {
        Style {
            enabled: std::io::stdout().is_terminal() && !plain_terminal_requested(),
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Success (green).
    pub fn good(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Failure (bold red).
    pub fn bad(self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// Neither (yellow).
    pub fn note(self, text: &str) -> String {
        self.paint("33", text)
    }
}
