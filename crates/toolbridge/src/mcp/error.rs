//! [`McpError`]: what can go wrong talking to an MCP server.

use std::time::Duration;

/// How many bytes of a server's stderr tail an error message shows (the
/// whole kept tail is in the error's `stderr` field).
const DISPLAYED_STDERR_BYTES: usize = 4 * 1024;

/// A failure talking to an MCP server, naming the server, the phase or tool,
/// and, for stdio servers, the exit status and the tail of its stderr.
///
/// A tool that *reports* a failure (`isError: true`) is not an `McpError`:
/// it is an `Ok` [`ToolResult`](crate::ToolResult) with `is_error` set
/// (MCP specification 2025-11-25, "Tools" → "Error Handling").
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The server's configuration is unusable (empty command, bad header…).
    #[error("server '{server}': invalid configuration: {message}")]
    InvalidConfig {
        /// The server.
        server: String,
        /// What is wrong.
        message: String,
    },

    /// The server process could not be started.
    #[error(
        "server '{server}': could not start `{command}` (check the command, PATH and working directory)"
    )]
    Spawn {
        /// The server.
        server: String,
        /// The command that failed to start.
        command: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// The server process exited before the handshake finished.
    #[error("server '{server}' exited during startup ({status}){}{}", stdout_suffix(.stdout), stderr_suffix(.stderr))]
    ExitedDuringStartup {
        /// The server.
        server: String,
        /// The exit status, e.g. `exit code 3` or `killed by signal 9`.
        status: String,
        /// What it printed on stdout that was not JSON-RPC (a usage text, a
        /// banner), summarised; empty when nothing.
        stdout: String,
        /// The tail of the server's stderr (at most 64 KiB).
        stderr: String,
    },

    /// The server could not be reached (nothing listens at the URL, the
    /// connection was refused or reset) while connecting.
    #[error("server '{server}': could not connect: {message}")]
    Unreachable {
        /// The server.
        server: String,
        /// The transport's error and its causes.
        message: String,
    },

    /// The handshake did not finish within the startup timeout.
    #[error(
        "server '{server}' did not finish initialize within {} s; check the command or URL, or raise the startup timeout{}{}",
        .after.as_secs_f64(), stdout_suffix(.stdout), stderr_suffix(.stderr)
    )]
    StartupTimeout {
        /// The server.
        server: String,
        /// The startup timeout that elapsed.
        after: Duration,
        /// What a stdio server printed on stdout that was not JSON-RPC,
        /// summarised; empty when nothing (and for HTTP servers).
        stdout: String,
        /// The tail of the server's stderr (empty for HTTP servers).
        stderr: String,
    },

    /// The initialize (or discover) handshake failed.
    #[error("server '{server}': initialize failed: {message}{}", stderr_suffix(.stderr))]
    Handshake {
        /// The server.
        server: String,
        /// Why.
        message: String,
        /// The tail of the server's stderr (empty for HTTP servers).
        stderr: String,
    },

    /// The server was used before `connect()`.
    #[error("server '{server}' is not connected; call connect() first")]
    NotConnected {
        /// The server.
        server: String,
    },

    /// The server was closed by `cleanup()` (before or during the call).
    #[error(
        "server '{server}' is closed: {phase} failed because cleanup() was called; connect it again to use it"
    )]
    Closed {
        /// The server.
        server: String,
        /// What was being done, e.g. `tools/call 'echo'`.
        phase: String,
    },

    /// The server process exited (or closed its stdout) while in use.
    #[error("server '{server}' exited during {phase} ({status}){}", stderr_suffix(.stderr))]
    Exited {
        /// The server.
        server: String,
        /// What was being done, e.g. `tools/call 'echo'`.
        phase: String,
        /// The exit status, or a note that only stdout was closed.
        status: String,
        /// The tail of the server's stderr (at most 64 KiB).
        stderr: String,
    },

    /// The connection to the server was lost (transport failure).
    #[error("server '{server}': connection lost during {phase}: {message}")]
    ConnectionLost {
        /// The server.
        server: String,
        /// What was being done.
        phase: String,
        /// The transport's error.
        message: String,
    },

    /// A request did not get its response in time. For `tools/call`,
    /// `notifications/cancelled` was sent to the server.
    #[error(
        "server '{server}': {phase} timed out after {} s (the request was cancelled); raise the call timeout if the tool is slow",
        .after.as_secs_f64()
    )]
    Timeout {
        /// The server.
        server: String,
        /// What timed out, e.g. `tools/call 'search'`.
        phase: String,
        /// The timeout that elapsed.
        after: Duration,
    },

    /// The server answered with a JSON-RPC error.
    #[error("server '{server}': {phase} failed with JSON-RPC error {code}: {message}")]
    Rpc {
        /// The server.
        server: String,
        /// The request, e.g. `tools/call 'echo'`.
        phase: String,
        /// The JSON-RPC error code (e.g. -32602 invalid params).
        code: i32,
        /// The error message.
        message: String,
        /// The error's `data`, if any.
        data: Option<serde_json::Value>,
    },

    /// The server's answer broke the protocol (wrong result type, endless
    /// pagination…).
    #[error("server '{server}': protocol error during {phase}: {message}")]
    Protocol {
        /// The server.
        server: String,
        /// What was being done.
        phase: String,
        /// What was wrong.
        message: String,
    },
}

impl McpError {
    /// The server this error is about.
    pub fn server(&self) -> &str {
        match self {
            Self::InvalidConfig { server, .. }
            | Self::Spawn { server, .. }
            | Self::ExitedDuringStartup { server, .. }
            | Self::StartupTimeout { server, .. }
            | Self::Handshake { server, .. }
            | Self::Unreachable { server, .. }
            | Self::NotConnected { server }
            | Self::Closed { server, .. }
            | Self::Exited { server, .. }
            | Self::ConnectionLost { server, .. }
            | Self::Timeout { server, .. }
            | Self::Rpc { server, .. }
            | Self::Protocol { server, .. } => server,
        }
    }

    /// The tail of the server's stderr carried by this error, if any.
    pub fn stderr_tail(&self) -> Option<&str> {
        match self {
            Self::ExitedDuringStartup { stderr, .. }
            | Self::StartupTimeout { stderr, .. }
            | Self::Handshake { stderr, .. }
            | Self::Exited { stderr, .. } => Some(stderr),
            _ => None,
        }
    }

    /// Whether this is a timeout.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout { .. } | Self::StartupTimeout { .. })
    }
}

/// Formats the summary of non-protocol stdout lines for an error message.
fn stdout_suffix(stdout: &str) -> String {
    if stdout.is_empty() {
        String::new()
    } else {
        format!("; on stdout it printed {stdout}")
    }
}

/// Formats a stderr tail for an error message: nothing when empty, else the
/// last [`DISPLAYED_STDERR_BYTES`] on lines of their own.
fn stderr_suffix(stderr: &str) -> String {
    let trimmed = stderr.trim_end();
    if trimmed.is_empty() {
        return String::new();
    }
    let mut start = trimmed.len().saturating_sub(DISPLAYED_STDERR_BYTES);
    while !trimmed.is_char_boundary(start) {
        start += 1;
    }
    let shown = &trimmed[start..];
    let elided = if start > 0 { "…" } else { "" };
    format!("\n--- stderr of the server (last lines) ---\n{elided}{shown}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_error_names_server_phase_status_and_stderr() {
        let error = McpError::Exited {
            server: "fs".into(),
            phase: "tools/call 'read'".into(),
            status: "exit code 7".into(),
            stderr: "boom\n".into(),
        };
        let text = error.to_string();
        assert!(text.starts_with("server 'fs' exited during tools/call 'read' (exit code 7)"));
        assert!(text.ends_with("boom"), "{text}");
    }

    #[test]
    fn long_stderr_is_shortened_in_the_message_only() {
        let stderr = "é".repeat(10_000);
        let error = McpError::ExitedDuringStartup {
            server: "s".into(),
            status: "exit code 1".into(),
            stdout: String::new(),
            stderr: stderr.clone(),
        };
        assert!(error.to_string().len() < 5 * 1024);
        assert_eq!(error.stderr_tail(), Some(stderr.as_str()));
    }
}
