//! Exit codes, how an error maps to one, and how it is printed.

use std::{fmt, io::Write, process::ExitCode};

use toolbridge::{audit::AuditError, config::ConfigError, hub::HubError, mcp::McpError};

use crate::{config_file::NotFound, server::Interrupted};

/// A usage error found after parsing (e.g. `--server` naming no server of
/// the config): exit code 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Some servers did not connect, so an unknown tool name may just be on
/// one of them: a failure (3), not a usage error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServersDown {
    /// The tool asked for.
    pub tool: String,
    /// The servers that failed to connect.
    pub failed: Vec<String>,
}

impl fmt::Display for ServersDown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool '{}' may be on a server that failed to connect ({})",
            self.tool,
            self.failed.join(", ")
        )
    }
}

impl std::error::Error for ServersDown {}

/// How a run ended, as the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: the command succeeded.
    Success,
    /// 1: the tool ran and reported a failure (`isError: true`).
    ToolError,
    /// 2: bad flags or an unusable configuration (also clap's code).
    Usage,
    /// 3: the server could not be started or reached, broke the protocol,
    /// or did not answer in time; also any other runtime failure.
    Failure,
    /// 128 + N: stopped by signal N (130 for SIGINT, 143 for SIGTERM),
    /// after the server was cleaned up.
    Signal(u8),
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(match exit {
            Exit::Success => 0,
            Exit::ToolError => 1,
            Exit::Usage => 2,
            Exit::Failure => 3,
            Exit::Signal(code) => code,
        })
    }
}

/// The exit code an error calls for: the first cause that toolbridge knows
/// decides.
///
/// Usage (2): bad config files ([`ConfigError`]), no config file found,
/// an invalid server config, unknown server or tool names in hub mode
/// ([`HubError::NoServer`], [`HubError::ToolNotFound`],
/// [`HubError::NoExposedTool`]), a transport the hub does not support, an
/// audit sink that cannot be queried. Failure (3): everything that happens
/// at run time (connecting, the protocol, timeouts, an unreadable audit
/// log).
pub fn classify(error: &anyhow::Error) -> Exit {
    // A context value is not itself in `chain()`; anyhow finds it here.
    if error.downcast_ref::<ServersDown>().is_some() {
        return Exit::Failure;
    }
    for cause in error.chain() {
        if let Some(error) = cause.downcast_ref::<McpError>() {
            return classify_mcp(error);
        }
        if let Some(error) = cause.downcast_ref::<HubError>() {
            return match error {
                HubError::NoServer { .. }
                | HubError::ToolNotFound { .. }
                | HubError::NoExposedTool { .. }
                | HubError::Unsupported { .. }
                | HubError::Policy(_) => Exit::Usage,
                HubError::Mcp(error) => classify_mcp(error),
                _ => Exit::Failure,
            };
        }
        if let Some(error) = cause.downcast_ref::<AuditError>() {
            return match error {
                AuditError::NotQueryable { .. }
                | AuditError::NoDataDir
                | AuditError::InvalidSince { .. } => Exit::Usage,
                _ => Exit::Failure,
            };
        }
        if cause.is::<ConfigError>() || cause.is::<NotFound>() || cause.is::<UsageError>() {
            return Exit::Usage;
        }
        if let Some(interrupted) = cause.downcast_ref::<Interrupted>() {
            return Exit::Signal(interrupted.exit_code());
        }
    }
    Exit::Failure
}

fn classify_mcp(error: &McpError) -> Exit {
    match error {
        McpError::InvalidConfig { .. } => Exit::Usage,
        _ => Exit::Failure,
    }
}

/// Whether the error is a write to a closed pipe (`toolbridge … | head`),
/// which ends the run quietly, as in ripgrep.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes on one line each joined by `: `, as anyhow's
/// `{:#}` prints them, except that a cause whose text its parent already
/// quotes is not repeated (some library errors embed their source).
pub fn format_chain(error: &anyhow::Error) -> String {
    chain_text(error.chain())
}

/// [`format_chain`] for a plain error and its sources.
pub fn format_error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    chain_text(std::iter::successors(Some(error), |e| e.source()))
}

fn chain_text<'a>(chain: impl Iterator<Item = &'a (dyn std::error::Error + 'static)>) -> String {
    let mut text = String::new();
    for cause in chain {
        let message = cause.to_string();
        if text.contains(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
    }
    text
}

/// Turns the outcome of a run into the exit code, printing an error (with
/// its cause chain) to stderr.
pub fn report(outcome: anyhow::Result<Exit>) -> ExitCode {
    match outcome {
        Ok(exit) => exit.into(),
        Err(error) if is_broken_pipe(&error) => Exit::Success.into(),
        Err(error) => {
            // Nothing else can be done when stderr itself is gone.
            let _ = writeln!(std::io::stderr(), "error: {}", format_chain(&error));
            classify(&error).into()
        }
    }
}

/// Prints a clap error (or `--help` / `--version`) and returns clap's code:
/// 0 for help and version, 2 for usage errors.
pub fn clap_error(error: &clap::Error) -> ExitCode {
    // Help goes to stdout and errors to stderr; if that write fails there is
    // no channel left to report it on.
    let _ = error.print();
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_config_is_a_usage_error() {
        let error = anyhow::Error::new(McpError::InvalidConfig {
            server: "s".into(),
            message: "bad".into(),
        });
        assert_eq!(classify(&error), Exit::Usage);
    }

    #[test]
    fn timeouts_and_unknown_errors_are_failures() {
        let timeout = anyhow::Error::new(McpError::Timeout {
            server: "s".into(),
            phase: "tools/call 'x'".into(),
            after: std::time::Duration::from_secs(1),
        })
        .context("calling");
        assert_eq!(classify(&timeout), Exit::Failure);
        assert_eq!(classify(&anyhow::anyhow!("other")), Exit::Failure);
    }

    #[test]
    fn chain_does_not_repeat_an_embedded_source() {
        let error = anyhow::Error::new(McpError::Spawn {
            server: "s".into(),
            command: "nope".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        });
        let text = format_chain(&error);
        assert_eq!(text.matches("not found").count(), 1, "{text}");
    }

    #[test]
    fn hub_and_config_name_errors_are_usage_errors() {
        let unknown = anyhow::Error::new(HubError::NoExposedTool {
            name: "x".into(),
            available: vec![],
        });
        assert_eq!(classify(&unknown), Exit::Usage);
        let down = unknown.context(ServersDown {
            tool: "x".into(),
            failed: vec!["b".into()],
        });
        assert_eq!(classify(&down), Exit::Failure);
        let unavailable = anyhow::Error::new(HubError::Unavailable {
            server: "s".into(),
            state: "failed".into(),
            reason: "r".into(),
        });
        assert_eq!(classify(&unavailable), Exit::Failure);
        let spawn = anyhow::Error::new(HubError::Mcp(McpError::InvalidConfig {
            server: "s".into(),
            message: "bad".into(),
        }));
        assert_eq!(classify(&spawn), Exit::Usage);
        let usage = anyhow::Error::new(UsageError("u".into())).context("--server");
        assert_eq!(classify(&usage), Exit::Usage);
    }

    #[test]
    fn chain_joins_distinct_causes() {
        let error = anyhow::anyhow!("inner").context("outer");
        assert_eq!(format_chain(&error), "outer: inner");
    }
}
