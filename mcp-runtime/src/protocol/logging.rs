//! Log levels (RFC 5424, as MCP names them) and `notifications/message`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How severe a log message is, least to most (RFC 5424 order).
///
/// ```
/// use mcp_runtime::protocol::LogLevel;
/// assert!(LogLevel::Warning > LogLevel::Info);
/// assert_eq!("error".parse::<LogLevel>(), Ok(LogLevel::Error));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    pub(crate) fn index(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_index(index: u8) -> Option<LogLevel> {
        LogLevel::ALL.get(usize::from(index)).copied()
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLogLevel;

impl fmt::Display for UnknownLogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown log level: use debug, info, notice, warning, error, critical, alert or emergency")
    }
}

impl std::error::Error for UnknownLogLevel {}

impl FromStr for LogLevel {
    type Err = UnknownLogLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LogLevel::ALL.into_iter().find(|l| l.as_str() == s).ok_or(UnknownLogLevel)
    }
}

impl From<tracing::Level> for LogLevel {
    fn from(level: tracing::Level) -> Self {
        match level {
            tracing::Level::ERROR => LogLevel::Error,
            tracing::Level::WARN => LogLevel::Warning,
            tracing::Level::INFO => LogLevel::Info,
            tracing::Level::DEBUG | tracing::Level::TRACE => LogLevel::Debug,
        }
    }
}

/// The params of `notifications/message`.
#[derive(Debug, Serialize)]
pub(crate) struct LogMessage<'a, D: Serialize> {
    pub(crate) level: LogLevel,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) logger: Option<&'a str>,
    pub(crate) data: D,
}
