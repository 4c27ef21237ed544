//! Exit codes, how an error maps to one, and how it is printed.

use std::{io::Write, process::ExitCode};

use toolbridge::mcp::McpError;

use crate::server::Interrupted;

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
pub fn classify(error: &anyhow::Error) -> Exit {
    for cause in error.chain() {
        if let Some(error) = cause.downcast_ref::<McpError>() {
            return match error {
                McpError::InvalidConfig { .. } => Exit::Usage,
                _ => Exit::Failure,
            };
        }
        if let Some(interrupted) = cause.downcast_ref::<Interrupted>() {
            return Exit::Signal(interrupted.exit_code());
        }
    }
    Exit::Failure
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
    let mut text = String::new();
    for cause in error.chain() {
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
    fn chain_joins_distinct_causes() {
        let error = anyhow::anyhow!("inner").context("outer");
        assert_eq!(format_chain(&error), "outer: inner");
    }
}
