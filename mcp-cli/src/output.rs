//! How results look: text for a person (colour on a terminal, unless `NO_COLOR`), JSON for a
//! script.

use std::io::IsTerminal;

use serde_json::Value;

/// Text styles, plain when stdout is not a terminal.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    colour: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is not set.
    pub(crate) fn for_stdout() -> Style {
        Style { colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) }
    }

    /// Colour when stderr is a terminal and `NO_COLOR` is not set.
    pub(crate) fn for_stderr() -> Style {
        Style { colour: std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    pub(crate) fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    pub(crate) fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    pub(crate) fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    pub(crate) fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    pub(crate) fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }
}

/// Prints `value` as pretty JSON on stdout.
pub(crate) fn print_json(value: &Value) {
    println!("{}", serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string()));
}

/// A duration in milliseconds, as the timings print it.
pub(crate) fn millis(took: std::time::Duration) -> String {
    format!("{:.1} ms", took.as_secs_f64() * 1000.0)
}
