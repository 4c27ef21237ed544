//! [`BridgeClient`]: toolbridge's rmcp client handler.

// Roots and logging are deprecated by SEP-2577 but still sent by servers of
// the 2024-11-05 … 2025-11-25 era, which toolbridge supports.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::{
    ClientHandler, RoleClient,
    model::{
        ClientCapabilities, ClientConfig, ErrorData, Implementation, ListRootsRequestMethod,
        ListRootsResult, LoggingLevel, LoggingMessageNotificationParam,
    },
    service::{NotificationContext, RequestContext},
};
use tokio::sync::watch;

/// Answers what a server asks of the client and reports notifications.
///
/// - `ping` is answered (rmcp's default);
/// - `roots/list`, sampling and other client features toolbridge does not
///   declare get a `-32601` (method not found) error at once, so a server
///   that asks mid-call is not left waiting;
/// - `notifications/tools/list_changed` bumps a counter that owners watch;
/// - `notifications/message` log entries go to `tracing`.
#[derive(Clone)]
pub(crate) struct BridgeClient {
    server: Arc<str>,
    tools_changed: watch::Sender<u64>,
}

impl BridgeClient {
    pub(crate) fn new(server: Arc<str>, tools_changed: watch::Sender<u64>) -> Self {
        Self {
            server,
            tools_changed,
        }
    }
}

/// How toolbridge introduces itself: its implementation info and its
/// (empty) client capabilities.
pub(crate) fn identity() -> (Implementation, ClientCapabilities) {
    (
        Implementation::new("toolbridge", env!("CARGO_PKG_VERSION")),
        ClientCapabilities::default(),
    )
}

impl ClientHandler for BridgeClient {
    fn get_info(&self) -> ClientConfig {
        let (implementation, capabilities) = identity();
        ClientConfig::new(capabilities, implementation)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Err(ErrorData::method_not_found::<ListRootsRequestMethod>())
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::debug!(server = %self.server, "server sent notifications/tools/list_changed");
        self.tools_changed.send_modify(|n| *n += 1);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let logger = params.logger.as_deref().unwrap_or("");
        match params.level {
            LoggingLevel::Debug => {
                tracing::debug!(server = %self.server, logger, data = %params.data, "server log")
            }
            LoggingLevel::Info | LoggingLevel::Notice => {
                tracing::info!(server = %self.server, logger, data = %params.data, "server log")
            }
            LoggingLevel::Warning => {
                tracing::warn!(server = %self.server, logger, data = %params.data, "server log")
            }
            _ => tracing::error!(server = %self.server, logger, data = %params.data, "server log"),
        }
    }
}
