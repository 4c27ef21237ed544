//! [`HubEvent`]: what happened in the hub, for the audit log and for
//! servers that forward `tools/list_changed` downstream.

use std::time::Duration;

pub use crate::audit::{CallOutcome, DisconnectReason};

/// Something that happened in the hub. Subscribe with
/// [`Hub::subscribe`](super::Hub::subscribe).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HubEvent {
    /// A server finished its handshake and its tools were listed.
    Connected {
        /// The server.
        server: String,
        /// `stdio` or `http`.
        transport: &'static str,
        /// Tools exposed after the filter.
        tool_count: usize,
    },
    /// A server left the hub or lost its connection.
    Disconnected {
        /// The server.
        server: String,
        /// Why.
        reason: DisconnectReason,
        /// The process's exit code, when it exited with one.
        exit_code: Option<i32>,
        /// The error text, when there was one.
        detail: Option<String>,
    },
    /// A server was started again after it died.
    Restarted {
        /// The server.
        server: String,
        /// Which attempt succeeded (1-based).
        attempt: u32,
        /// Why it had to be restarted (the last error).
        reason: String,
    },
    /// A server's tool list changed (`tools/list_changed`) and was re-read.
    ToolsChanged {
        /// The server.
        server: String,
        /// Tools exposed after the filter.
        tool_count: usize,
    },
    /// A tool call ended.
    ToolCall {
        /// The server.
        server: String,
        /// The server's own name of the tool.
        tool: String,
        /// How long it took.
        duration: Duration,
        /// How it ended.
        outcome: CallOutcome,
        /// The top-level argument names (never the values).
        argument_names: Vec<String>,
        /// The error text, when the call failed.
        error: Option<String>,
    },
}

impl HubEvent {
    /// The event as an audit-log record, when it is one (connects,
    /// disconnects, restarts and calls; tool-list changes are not).
    pub fn to_audit(&self) -> Option<crate::audit::AuditEvent> {
        use crate::audit::{AuditEvent, AuditEventKind};
        let kind = match self {
            Self::Connected {
                server,
                transport,
                tool_count,
            } => AuditEventKind::McpConnect {
                server: server.clone(),
                transport: (*transport).to_owned(),
                tool_count: *tool_count,
            },
            Self::Disconnected {
                server,
                reason,
                exit_code,
                detail,
            } => AuditEventKind::McpDisconnect {
                server: server.clone(),
                reason: *reason,
                exit_code: *exit_code,
                detail: detail.clone(),
            },
            Self::Restarted {
                server,
                attempt,
                reason,
            } => AuditEventKind::McpRestart {
                server: server.clone(),
                attempt: *attempt,
                reason: reason.clone(),
            },
            Self::ToolCall {
                server,
                tool,
                duration,
                outcome,
                argument_names,
                error,
            } => AuditEventKind::McpToolCall {
                server: server.clone(),
                tool: tool.clone(),
                duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
                outcome: *outcome,
                argument_names: argument_names.clone(),
                error: error.clone(),
            },
            Self::ToolsChanged { .. } => return None,
        };
        Some(AuditEvent::now(kind))
    }
}
