//! One server in the hub: its state, its tools, and its supervisor, which
//! restarts it when it dies and re-reads its tools on `tools/list_changed`.

use std::{
    sync::{
        Arc, Mutex, RwLock, Weak,
        atomic::{AtomicU32, Ordering},
    },
    time::{Duration, Instant, SystemTime},
};

use tokio::sync::{Semaphore, watch};
use tokio_util::sync::CancellationToken;

use super::{DisconnectReason, HubEvent, HubInner};
use crate::{
    config::ServerConfig,
    mcp::{McpError, McpServer, McpToolInfo},
};

/// Where a server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// Spawning / connecting, handshake not done yet.
    Starting,
    /// Connected; calls go through.
    Ready,
    /// It died; the hub is starting it again.
    Restarting,
    /// Restarts were exhausted; see the last error.
    Failed,
    /// Disconnected on request.
    Closed,
}

impl std::fmt::Display for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Starting => "starting",
            Self::Ready => "ready",
            Self::Restarting => "restarting",
            Self::Failed => "failed",
            Self::Closed => "closed",
        })
    }
}

/// A server held by the hub.
pub(crate) struct Entry {
    pub(crate) id: u64,
    pub(crate) config: ServerConfig,
    pub(crate) server: Box<dyn McpServer>,
    pub(crate) state: watch::Sender<ServerState>,
    /// The server's tools after its filter, as last listed.
    pub(crate) tools: RwLock<Vec<McpToolInfo>>,
    /// When the current session was established (wall clock and monotonic).
    pub(crate) connected_at: Mutex<Option<(SystemTime, Instant)>>,
    pub(crate) restarts: AtomicU32,
    pub(crate) last_error: Mutex<Option<String>>,
    /// Caps the calls in flight to this server, when configured.
    pub(crate) permits: Option<Semaphore>,
    /// Cancelled when the server is disconnected or the hub dropped.
    pub(crate) stop: CancellationToken,
}

impl Entry {
    pub(crate) fn state(&self) -> ServerState {
        *self.state.borrow()
    }

    pub(crate) fn tool_names(&self) -> Vec<String> {
        self.read_tools().iter().map(|t| t.name.clone()).collect()
    }

    pub(crate) fn read_tools(&self) -> std::sync::RwLockReadGuard<'_, Vec<McpToolInfo>> {
        // Writers only swap the vector; a poisoned lock still holds a valid one.
        self.tools.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn has_tool(&self, tool: &str) -> bool {
        self.read_tools().iter().any(|t| t.name == tool)
    }

    pub(crate) fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn set_last_error(&self, error: impl Into<String>) {
        *self.last_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(error.into());
    }

    pub(crate) fn mark_connected(&self) {
        *self.connected_at.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((SystemTime::now(), Instant::now()));
    }

    /// Lists the server's tools, applies its filter, and swaps them in.
    /// Returns how many are exposed.
    pub(crate) async fn refresh_tools(&self) -> Result<usize, McpError> {
        let filter = self.config.tool_filter();
        let listed = self.server.list_tools().await?;
        let kept: Vec<McpToolInfo> = listed
            .into_iter()
            .filter(|tool| filter.passes(&tool.to_spec(tool.name.clone())))
            .collect();
        let count = kept.len();
        *self.tools.write().unwrap_or_else(|e| e.into_inner()) = kept;
        Ok(count)
    }
}

/// The exit code in an error like "… (exit code 7)".
fn exit_code(error: &McpError) -> Option<i32> {
    let McpError::Exited { status, .. } = error else {
        return None;
    };
    status.strip_prefix("exit code ")?.parse().ok()
}

/// Watches one server for as long as it is in the hub: restarts it with
/// exponential backoff when its session ends, and re-reads its tools when
/// it says they changed.
pub(crate) async fn supervise(hub: Weak<HubInner>, entry: Arc<Entry>) {
    let handle = entry.server.handle().clone();
    let mut changes = handle.tool_list_changes();
    loop {
        tokio::select! {
            () = entry.stop.cancelled() => return,
            () = handle.disconnected() => {
                if entry.stop.is_cancelled() {
                    return;
                }
                let failure = handle.failure().await;
                let detail = failure.as_ref().map(ToString::to_string);
                if let Some(detail) = &detail {
                    entry.set_last_error(detail.clone());
                }
                entry.state.send_replace(ServerState::Restarting);
                emit(&hub, HubEvent::Disconnected {
                    server: entry.config.name.clone(),
                    reason: DisconnectReason::ProcessExit,
                    exit_code: failure.as_ref().and_then(exit_code),
                    detail,
                });
                if !restart(&hub, &entry).await {
                    return;
                }
                // A new session has a fresh notification counter position.
                changes.borrow_and_update();
            }
            changed = changes.changed() => {
                if changed.is_err() {
                    return;
                }
                match entry.refresh_tools().await {
                    Ok(tool_count) => {
                        if let Some(hub) = hub.upgrade() {
                            hub.rebuild_names();
                        }
                        emit(&hub, HubEvent::ToolsChanged {
                            server: entry.config.name.clone(),
                            tool_count,
                        });
                    }
                    Err(error) => {
                        tracing::warn!(server = %entry.config.name, %error, "re-reading the tool list failed");
                    }
                }
            }
        }
    }
}

/// Starts the server again with backoff. Returns whether it is back.
async fn restart(hub: &Weak<HubInner>, entry: &Entry) -> bool {
    let policy = entry.config.restart;
    for attempt in 1..=policy.max_attempts {
        let factor = 2u32.saturating_pow(attempt - 1);
        let delay = policy.base.saturating_mul(factor).min(policy.cap);
        tokio::select! {
            () = entry.stop.cancelled() => return false,
            () = tokio::time::sleep(delay) => {}
        }
        tracing::info!(server = %entry.config.name, attempt, "restarting the server");
        let outcome = match entry.server.connect().await {
            Ok(()) => entry.refresh_tools().await.map(|_| ()),
            Err(error) => Err(error),
        };
        match outcome {
            Ok(()) => {
                entry.restarts.fetch_add(1, Ordering::SeqCst);
                entry.mark_connected();
                entry.state.send_replace(ServerState::Ready);
                if let Some(hub) = hub.upgrade() {
                    hub.rebuild_names();
                }
                emit(
                    hub,
                    HubEvent::Restarted {
                        server: entry.config.name.clone(),
                        attempt,
                        reason: entry.last_error().unwrap_or_default(),
                    },
                );
                return true;
            }
            Err(error) => {
                tracing::warn!(server = %entry.config.name, attempt, %error, "restart failed");
                entry.set_last_error(error.to_string());
            }
        }
    }
    entry.state.send_replace(ServerState::Failed);
    emit(
        hub,
        HubEvent::Disconnected {
            server: entry.config.name.clone(),
            reason: DisconnectReason::Error,
            exit_code: None,
            detail: entry.last_error(),
        },
    );
    false
}

fn emit(hub: &Weak<HubInner>, event: HubEvent) {
    if let Some(hub) = hub.upgrade() {
        hub.emit(event);
    }
}

/// How long to wait at most for a restarting server before a call fails.
pub(crate) fn wait_limit(entry: &Entry) -> Duration {
    entry.server.handle().options().call_timeout
}
