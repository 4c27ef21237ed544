//! [`HubError`]: what the hub reports, naming what is missing.

use crate::mcp::McpError;

/// A hub failure. Messages name what is missing and what exists, e.g.
/// "no server named 'x' (connected: a, b)".
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HubError {
    /// No server has that name.
    #[error("no server named '{name}' (connected: {})", list(.connected))]
    NoServer {
        /// The requested name.
        name: String,
        /// The servers the hub holds.
        connected: Vec<String>,
    },

    /// The server has no tool of that name (after its filter).
    #[error("tool '{tool}' not found on server '{server}' (it has: {})", list(.available))]
    ToolNotFound {
        /// The server.
        server: String,
        /// The requested tool (the server's own name for it).
        tool: String,
        /// The tools the server exposes.
        available: Vec<String>,
    },

    /// No exposed tool has that name.
    #[error("no tool exposed as '{name}' (exposed: {})", list(.available))]
    NoExposedTool {
        /// The requested exposed name.
        name: String,
        /// The exposed names.
        available: Vec<String>,
    },

    /// A server of that name is already connected (or connecting).
    #[error(
        "a server named '{name}' is already connected; disconnect it first or pick another name"
    )]
    Duplicate {
        /// The name.
        name: String,
    },

    /// The server's configuration cannot be used by the hub.
    #[error("server '{server}': {message}")]
    Unsupported {
        /// The server.
        server: String,
        /// Why.
        message: String,
    },

    /// The server is not available: restarting past the call's timeout,
    /// failed for good, or disconnected.
    #[error("server '{server}' is {state}: {reason}")]
    Unavailable {
        /// The server.
        server: String,
        /// Its state (`restarting`, `failed`, `closed`).
        state: String,
        /// Why (the last error, e.g. the exit status and stderr tail).
        reason: String,
    },

    /// The command policy refused a server added through the programmatic
    /// (or HTTP) interface; nothing was spawned.
    #[error(transparent)]
    Policy(#[from] crate::policy::PolicyError),

    /// Connecting, listing or calling failed.
    #[error(transparent)]
    Mcp(#[from] McpError),
}

/// At most this many names are listed in a message.
const LISTED_NAMES: usize = 20;

fn list(names: &[String]) -> String {
    match names.len() {
        0 => "none".to_owned(),
        n if n <= LISTED_NAMES => names.join(", "),
        n => format!(
            "{}, … and {} more",
            names[..LISTED_NAMES].join(", "),
            n - LISTED_NAMES
        ),
    }
}
