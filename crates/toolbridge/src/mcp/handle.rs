//! [`McpServerHandle`]: the shared owner of one server's connection.

use std::{
    future::Future,
    sync::{
        Arc, RwLock,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use serde_json::Value;
use tokio::sync::{Mutex, watch};
use toolbridge_core::ToolResult;

use super::{McpError, McpToolInfo, session::Session};

/// Timeouts of one server.
///
/// The startup timeout is separate from the call timeout because a cold
/// `npx -y` or `uvx` start downloads packages first and can take a minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpServerOptions {
    /// From spawn (or first request) until the handshake is done. Default 60 s.
    pub startup_timeout: Duration,
    /// For one request (`tools/list` page, `tools/call`), unless a call
    /// gives its own. Default 30 s.
    pub call_timeout: Duration,
    /// The largest message accepted from the server, in bytes: one stdio
    /// line, one HTTP JSON body or SSE event. Default 128 MiB. A stdio
    /// server that sends more is disconnected with a clear error instead of
    /// exhausting memory.
    pub max_message_bytes: usize,
}

impl Default for McpServerOptions {
    fn default() -> Self {
        Self {
            startup_timeout: Duration::from_secs(60),
            call_timeout: Duration::from_secs(30),
            max_message_bytes: super::line_transport::DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// The builder methods every server type shares. Its name and timeouts
/// live in its handle, which these methods replace, so they are meant for
/// before connecting or bridging.
macro_rules! handle_builders {
    () => {
        /// Sets the name (used in errors, logs and prefixes). Call before
        /// connecting or bridging: it makes a new handle.
        pub fn with_name(self, name: impl Into<String>) -> Self {
            let name: String = name.into();
            Self {
                handle: self.handle.renamed(name),
                ..self
            }
        }

        /// Sets both timeouts. Call before connecting or bridging.
        pub fn with_options(self, options: McpServerOptions) -> Self {
            Self {
                handle: self.handle.with_options(options),
                ..self
            }
        }

        /// Sets the startup timeout (until the handshake is done; default 60 s).
        pub fn with_startup_timeout(self, timeout: std::time::Duration) -> Self {
            let options = McpServerOptions {
                startup_timeout: timeout,
                ..self.handle.options()
            };
            self.with_options(options)
        }

        /// Sets the default per-call timeout (default 30 s).
        pub fn with_call_timeout(self, timeout: std::time::Duration) -> Self {
            let options = McpServerOptions {
                call_timeout: timeout,
                ..self.handle.options()
            };
            self.with_options(options)
        }
    };
}
pub(crate) use handle_builders;

enum State {
    Idle,
    Connected(Arc<Session>),
    Closed,
}

struct Inner {
    name: Arc<str>,
    options: McpServerOptions,
    state: RwLock<State>,
    /// Serialises `connect()`, so concurrent callers start one process.
    connecting: Mutex<()>,
    /// Bumped by every `cleanup()`, so a connect that finishes after a
    /// cleanup started does not install its session.
    cleanups: AtomicU64,
    tools_changed: watch::Sender<u64>,
}

/// A cheap, clonable handle to one server's connection: what
/// [`McpServer`](super::McpServer) implementations and bridged tools share.
///
/// After [`McpServerHandle::cleanup`], calls through any clone fail with
/// [`McpError::Closed`] until the server is connected again.
#[derive(Clone)]
pub struct McpServerHandle {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServerHandle")
            .field("name", &self.inner.name)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl McpServerHandle {
    pub(crate) fn new(name: impl Into<Arc<str>>, options: McpServerOptions) -> Self {
        Self {
            inner: Arc::new(Inner {
                name: name.into(),
                options,
                state: RwLock::new(State::Idle),
                connecting: Mutex::new(()),
                cleanups: AtomicU64::new(0),
                tools_changed: watch::channel(0).0,
            }),
        }
    }

    /// A new handle with `name` and this handle's options.
    pub(crate) fn renamed(&self, name: impl Into<Arc<str>>) -> Self {
        Self::new(name, self.options())
    }

    /// A new handle with this handle's name and `options`.
    pub(crate) fn with_options(&self, options: McpServerOptions) -> Self {
        Self::new(self.name_arc(), options)
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    pub(crate) fn name_arc(&self) -> Arc<str> {
        Arc::clone(&self.inner.name)
    }

    /// The server's timeouts.
    pub fn options(&self) -> McpServerOptions {
        self.inner.options
    }

    pub(crate) fn tools_changed_sender(&self) -> watch::Sender<u64> {
        self.inner.tools_changed.clone()
    }

    /// A receiver whose value goes up by one for every
    /// `notifications/tools/list_changed` the server sends.
    pub fn tool_list_changes(&self) -> watch::Receiver<u64> {
        self.inner.tools_changed.subscribe()
    }

    /// Whether the server is connected and its transport is alive.
    pub fn is_connected(&self) -> bool {
        matches!(&*self.read_state(), State::Connected(s) if !s.is_lost())
    }

    /// Completes when the current session ends: the server exited or hung
    /// up, or `cleanup()` ran. Completes at once when not connected. A
    /// supervisor (the hub) awaits this to restart a crashed server.
    pub async fn disconnected(&self) {
        let session = match &*self.read_state() {
            State::Connected(session) => Arc::clone(session),
            _ => return,
        };
        session.ended().await;
    }

    /// Why the current session ended, as an error naming the server and,
    /// for stdio, its exit status and stderr tail. `None` while the session
    /// is alive or when none was connected.
    pub async fn failure(&self) -> Option<McpError> {
        let session = match &*self.read_state() {
            State::Connected(session) if session.is_lost() => Arc::clone(session),
            _ => return None,
        };
        Some(session.lost_error("the session").await)
    }

    /// The process id of a connected stdio server.
    pub fn pid(&self) -> Option<u32> {
        match &*self.read_state() {
            State::Connected(session) => session.pid(),
            _ => None,
        }
    }

    /// The protocol version negotiated with a connected server, e.g.
    /// `2025-11-25`, or `2026-07-28` for a stateless-era server.
    pub fn protocol_version(&self) -> Option<String> {
        match &*self.read_state() {
            State::Connected(session) => session.protocol_version(),
            _ => None,
        }
    }

    fn read_state(&self) -> std::sync::RwLockReadGuard<'_, State> {
        // The state is a plain enum swap; a panic elsewhere cannot leave it
        // half-written, so a poisoned lock is still usable.
        self.inner.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write_state(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.inner.state.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Installs the session `start` makes, unless a live one is there.
    pub(crate) async fn connect_with<F, Fut>(&self, start: F) -> Result<(), McpError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Session, McpError>>,
    {
        let _connecting = self.inner.connecting.lock().await;
        let stale = {
            let mut state = self.write_state();
            match &*state {
                State::Connected(session) if !session.is_lost() => return Ok(()),
                State::Connected(_) => match std::mem::replace(&mut *state, State::Idle) {
                    State::Connected(session) => Some(session),
                    _ => None,
                },
                _ => None,
            }
        };
        if let Some(stale) = stale {
            stale.shutdown().await;
        }
        let cleanups = self.inner.cleanups.load(Ordering::SeqCst);
        let session = Arc::new(start().await?);
        let installed = {
            let mut state = self.write_state();
            if self.inner.cleanups.load(Ordering::SeqCst) == cleanups {
                *state = State::Connected(Arc::clone(&session));
                true
            } else {
                false
            }
        };
        if installed {
            Ok(())
        } else {
            session.shutdown().await;
            Err(McpError::Closed {
                server: self.name().to_owned(),
                phase: "connect".to_owned(),
            })
        }
    }

    fn session(&self, phase: &str) -> Result<Arc<Session>, McpError> {
        match &*self.read_state() {
            State::Connected(session) => Ok(Arc::clone(session)),
            State::Idle => Err(McpError::NotConnected {
                server: self.name().to_owned(),
            }),
            State::Closed => Err(McpError::Closed {
                server: self.name().to_owned(),
                phase: phase.to_owned(),
            }),
        }
    }

    /// Lists all the server's tools: `tools/list`, following `nextCursor` to
    /// the end. Each page has the call timeout.
    ///
    /// Tools that cannot be used (no name, a name that breaks the MCP rule,
    /// an input schema that is not an object) are skipped with a warning
    /// naming them; they never fail the whole list.
    ///
    /// # Errors
    /// [`McpError::NotConnected`], [`McpError::Closed`], [`McpError::Exited`],
    /// [`McpError::Timeout`], [`McpError::Rpc`], and [`McpError::Protocol`]
    /// for a repeated cursor or more than
    /// [`MAX_TOOL_LIST_PAGES`](super::MAX_TOOL_LIST_PAGES) pages.
    pub async fn list_tools(&self) -> Result<Vec<McpToolInfo>, McpError> {
        self.session("tools/list")?
            .list_tools(self.inner.options.call_timeout)
            .await
    }

    /// Calls `tool` with `arguments` (a JSON object, or `null` for none),
    /// with the server's call timeout.
    ///
    /// A tool that reports failure (`isError: true`) is `Ok` with
    /// [`ToolResult::is_error`] set.
    ///
    /// # Errors
    /// [`McpError::Rpc`] for a JSON-RPC error (e.g. -32602 for an unknown
    /// tool or bad arguments); [`McpError::Timeout`] after the timeout
    /// (`notifications/cancelled` is sent); [`McpError::Exited`] at once when
    /// the server dies during the call (with its exit status and stderr);
    /// [`McpError::Closed`] at once when `cleanup()` runs;
    /// [`McpError::NotConnected`] before `connect()`.
    pub async fn call_tool(&self, tool: &str, arguments: Value) -> Result<ToolResult, McpError> {
        self.call_tool_with_timeout(tool, arguments, self.inner.options.call_timeout)
            .await
    }

    /// [`McpServerHandle::call_tool`] with its own timeout.
    ///
    /// # Errors
    /// As [`McpServerHandle::call_tool`].
    pub async fn call_tool_with_timeout(
        &self,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<ToolResult, McpError> {
        let phase = format!("tools/call '{tool}'");
        self.session(&phase)?
            .call_tool(tool, arguments, timeout)
            .await
    }

    /// Closes the connection: every pending call fails at once with
    /// [`McpError::Closed`]; a stdio server gets stdin EOF, then SIGTERM to
    /// its process group, then SIGKILL after
    /// [`SIGTERM_GRACE`](super::SIGTERM_GRACE) (5 s), and is reaped, with
    /// no grandchild left; an HTTP session is ended with `DELETE`.
    ///
    /// Idempotent, bounded (about 7 s at worst), callable from any task.
    ///
    /// # Errors
    /// None today.
    pub async fn cleanup(&self) -> Result<(), McpError> {
        self.inner.cleanups.fetch_add(1, Ordering::SeqCst);
        let previous = std::mem::replace(&mut *self.write_state(), State::Closed);
        if let State::Connected(session) = previous {
            session.shutdown().await;
        }
        Ok(())
    }
}
