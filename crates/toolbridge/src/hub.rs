//! The hub: many named MCP servers at once, their tools in one namespace.
//!
//! A [`Hub`] holds servers by name (from a [`HubConfig`] or one by one),
//! exposes every server's tools under safe, unique names (see
//! [`crate::naming`]: `mcp_{server}_{tool}` by default, `{prefix}__{tool}`
//! for a server with a prefix), routes calls by table lookup, restarts a
//! server that dies (exponential backoff, one new process at a time),
//! re-reads a server's tools on `tools/list_changed` (the legacy
//! notification and the 2026-07-28 subscription), caps the calls in flight
//! per server, and reports what happens as [`HubEvent`]s.
//!
//! # Examples
//! ```no_run
//! use toolbridge::{config::HubConfig, hub::Hub};
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let config = HubConfig::load("toolbridge.toml")?;
//! let hub = Hub::new();
//! for (server, outcome) in hub.connect_all(&config).await {
//!     if let Err(error) = outcome {
//!         eprintln!("{server}: {error}");
//!     }
//! }
//! for tool in hub.list_tools() {
//!     println!("{} ({} on {})", tool.exposed, tool.tool, tool.server);
//! }
//! let result = hub.call("mcp_everything_echo", serde_json::json!({"message": "hi"})).await?;
//! println!("{}", result.text_content());
//! hub.close().await;
//! # Ok(())
//! # }
//! ```

mod entry;
mod error;
mod event;

use std::{
    sync::{
        Arc, RwLock,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant, SystemTime},
};

use serde_json::Value;
use tokio::sync::{Semaphore, broadcast, watch};
use tokio_util::sync::{CancellationToken, DropGuard};
use toolbridge_core::{FunctionTool, ToolError, ToolRegistry, ToolResult, ToolSpec};

pub use entry::ServerState;
pub use error::HubError;
pub use event::{CallOutcome, DisconnectReason, HubEvent};

use crate::{
    audit::AuditLog,
    config::{HubConfig, ServerConfig, TransportConfig},
    mcp::{McpError, McpServer, McpServerStdio, McpServerStreamableHttp},
    naming::{ExposedNames, NameRequest, NameStyle},
    policy::{CommandPolicy, Trust},
};
use entry::Entry;

/// One server as [`Hub::list_connections`] reports it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ConnectionInfo {
    /// A number unique within this hub, in connection order.
    pub id: u64,
    /// The server's name.
    pub name: String,
    /// `stdio` or `http`.
    pub transport: &'static str,
    /// Where it is in its life.
    pub state: ServerState,
    /// Tools exposed after its filter.
    pub tool_count: usize,
    /// When the current session was established.
    pub connected_at: Option<SystemTime>,
    /// How long the current session has been up.
    pub uptime: Option<Duration>,
    /// How often it was restarted after dying.
    pub restarts: u32,
    /// The last error (exit status and stderr tail for stdio), if any.
    pub last_error: Option<String>,
}

/// One tool as [`Hub::list_tools`] reports it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HubTool {
    /// The server it belongs to.
    pub server: String,
    /// The server's own name for it.
    pub tool: String,
    /// The name it is exposed and called by (`mcp_{server}_{tool}`…).
    pub exposed: String,
    /// Its spec under the exposed name, with the full input schema.
    pub spec: ToolSpec,
}

/// Shared state; supervisors hold it weakly.
pub(crate) struct HubInner {
    servers: RwLock<Vec<Arc<Entry>>>,
    names: RwLock<ExposedNames>,
    style: NameStyle,
    next_id: AtomicU64,
    events: broadcast::Sender<HubEvent>,
    policy: RwLock<CommandPolicy>,
    audit: RwLock<Option<AuditLog>>,
    shutdown: CancellationToken,
    _stop_on_drop: DropGuard,
}

impl HubInner {
    fn entries(&self) -> Vec<Arc<Entry>> {
        self.servers
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn server_names(&self) -> Vec<String> {
        self.entries()
            .iter()
            .map(|e| e.config.name.clone())
            .collect()
    }

    pub(crate) fn emit(&self, event: HubEvent) {
        if let Some(log) = &*self.audit.read().unwrap_or_else(|e| e.into_inner())
            && let Some(record) = event.to_audit()
        {
            // Never blocks: a full queue drops and counts the record.
            log.record(record);
        }
        // No subscriber is fine.
        let _ = self.events.send(event);
    }

    /// Rebuilds the exposed-name table from every server's current tools.
    pub(crate) fn rebuild_names(&self) {
        let requests: Vec<NameRequest> = self
            .entries()
            .iter()
            .flat_map(|entry| {
                let prefix = entry.config.prefix.clone();
                let style = self.style;
                entry
                    .tool_names()
                    .into_iter()
                    .map(move |tool| {
                        let request = NameRequest::new(entry.config.name.clone(), tool);
                        match &prefix {
                            Some(prefix) => request.with_prefix(prefix.clone()),
                            None => request.with_style(style),
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        *self.names.write().unwrap_or_else(|e| e.into_inner()) = ExposedNames::build(requests);
    }
}

/// Many named MCP servers, their tools in one namespace. Cheap to clone
/// (a handle); dropping the last clone stops every server (SIGKILL for
/// stdio servers); [`Hub::close`] stops them gracefully.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<HubInner>,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("servers", &self.inner.server_names())
            .finish()
    }
}

impl Hub {
    /// An empty hub exposing tools as `mcp_{server}_{tool}`.
    pub fn new() -> Self {
        Self::with_style(NameStyle::Namespaced)
    }

    /// An empty hub exposing tools of servers without a prefix in `style`
    /// (servers with a configured prefix always use `{prefix}__{tool}`).
    pub fn with_style(style: NameStyle) -> Self {
        let shutdown = CancellationToken::new();
        Self {
            inner: Arc::new(HubInner {
                servers: RwLock::new(Vec::new()),
                names: RwLock::new(ExposedNames::default()),
                style,
                next_id: AtomicU64::new(1),
                events: broadcast::channel(1024).0,
                policy: RwLock::new(CommandPolicy::default()),
                audit: RwLock::new(None),
                _stop_on_drop: shutdown.clone().drop_guard(),
                shutdown,
            }),
        }
    }

    /// Events from now on: connects, disconnects, restarts, tool-list
    /// changes and calls. A slow receiver skips events (see
    /// [`broadcast::error::RecvError::Lagged`]).
    pub fn subscribe(&self) -> broadcast::Receiver<HubEvent> {
        self.inner.events.subscribe()
    }

    /// Records the hub's events from now on in `log`: connects,
    /// disconnects, restarts and calls (argument names only, never values).
    /// Recording never blocks a call: the log's bounded queue drops and
    /// counts what it cannot take. Replaces a log set before.
    pub fn record_audit(&self, log: AuditLog) {
        *self.inner.audit.write().unwrap_or_else(|e| e.into_inner()) = Some(log);
    }

    fn entry(&self, name: &str) -> Result<Arc<Entry>, HubError> {
        let entries = self.inner.entries();
        entries
            .iter()
            .find(|e| e.config.name == name)
            .cloned()
            .ok_or_else(|| HubError::NoServer {
                name: name.to_owned(),
                connected: entries.iter().map(|e| e.config.name.clone()).collect(),
            })
    }

    /// Replaces the command policy applied to servers added with
    /// [`Hub::connect`] (default: [`CommandPolicy::default`]).
    pub fn set_command_policy(&self, policy: CommandPolicy) {
        *self.inner.policy.write().unwrap_or_else(|e| e.into_inner()) = policy;
    }

    /// Connects one server added through the programmatic interface (an
    /// untrusted source: the command policy applies, and a refused command
    /// spawns nothing). See [`Hub::connect_with_trust`].
    ///
    /// # Errors
    /// As [`Hub::connect_with_trust`].
    pub async fn connect(&self, config: ServerConfig) -> Result<(), HubError> {
        self.connect_with_trust(config, Trust::Remote).await
    }

    /// Connects one server and adds it to the hub once its handshake
    /// succeeded and its tools were listed. The server is supervised from
    /// then on: restarted when it dies, re-read when its tools change.
    /// `Trust::Local` (the user's own config file or command line) skips
    /// the command policy; `Trust::Remote` applies it.
    ///
    /// # Errors
    /// [`HubError::Policy`] when the policy refuses the command (nothing is
    /// spawned); [`HubError::Duplicate`] when the name is taken (also while
    /// another connect of that name runs); [`HubError::Unsupported`] for a
    /// legacy `sse` server; [`HubError::Mcp`] when connecting or listing
    /// fails (the error names the server and, for stdio, its exit status and
    /// stderr).
    pub async fn connect_with_trust(
        &self,
        config: ServerConfig,
        trust: Trust,
    ) -> Result<(), HubError> {
        if let TransportConfig::Stdio(params) = &config.transport {
            self.inner
                .policy
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .check_for(trust, &config.name, params)?;
        }
        let server = build_server(&config)?;
        let entry = Arc::new(Entry {
            id: self.inner.next_id.fetch_add(1, Ordering::SeqCst),
            permits: config.max_concurrent_calls.map(Semaphore::new),
            config,
            server,
            state: watch::channel(ServerState::Starting).0,
            tools: RwLock::new(Vec::new()),
            connected_at: std::sync::Mutex::new(None),
            restarts: Default::default(),
            last_error: std::sync::Mutex::new(None),
            stop: self.inner.shutdown.child_token(),
        });
        {
            let mut servers = self
                .inner
                .servers
                .write()
                .unwrap_or_else(|e| e.into_inner());
            if servers.iter().any(|e| e.config.name == entry.config.name) {
                return Err(HubError::Duplicate {
                    name: entry.config.name.clone(),
                });
            }
            servers.push(Arc::clone(&entry));
        }
        let started = async {
            entry.server.connect().await?;
            entry.refresh_tools().await
        }
        .await;
        let tool_count = match started {
            Ok(count) => count,
            Err(error) => {
                self.remove(&entry);
                let _ = entry.server.cleanup().await;
                // A failed connect is on record too.
                self.inner.emit(HubEvent::Disconnected {
                    server: entry.config.name.clone(),
                    reason: DisconnectReason::Error,
                    exit_code: None,
                    detail: Some(error.to_string()),
                });
                return Err(error.into());
            }
        };
        entry.mark_connected();
        entry.state.send_replace(ServerState::Ready);
        self.inner.rebuild_names();
        self.inner.emit(HubEvent::Connected {
            server: entry.config.name.clone(),
            transport: entry.config.transport.kind(),
            tool_count,
        });
        tokio::spawn(entry::supervise(Arc::downgrade(&self.inner), entry));
        Ok(())
    }

    /// Connects every enabled server of `config` in parallel. The file is
    /// the user's own, so its servers are trusted; its `command_allowlist`
    /// becomes the policy for servers added later with [`Hub::connect`].
    /// One server failing does not stop the others; each outcome is
    /// returned with the server's name, in config order.
    pub async fn connect_all(&self, config: &HubConfig) -> Vec<(String, Result<(), HubError>)> {
        if config.command_allowlist.is_some() {
            self.set_command_policy(CommandPolicy::from_config(
                config.command_allowlist.as_deref(),
            ));
        }
        let connects = config.enabled_servers().map(|server| {
            let name = server.name.clone();
            let config = server.clone();
            async move { (name, self.connect_with_trust(config, Trust::Local).await) }
        });
        futures::future::join_all(connects).await
    }

    fn remove(&self, entry: &Arc<Entry>) {
        self.inner
            .servers
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|e| !Arc::ptr_eq(e, entry));
        self.inner.rebuild_names();
    }

    /// Disconnects a server: it leaves the hub, every call pending on it
    /// fails at once with "connection closed", and it is cleaned up (stdio:
    /// stdin EOF, SIGTERM, SIGKILL after 5 s).
    ///
    /// # Errors
    /// [`HubError::NoServer`] when no server has that name.
    pub async fn disconnect(&self, name: &str) -> Result<(), HubError> {
        let entry = self.entry(name)?;
        entry.stop.cancel();
        entry.state.send_replace(ServerState::Closed);
        self.remove(&entry);
        let _ = entry.server.cleanup().await;
        self.inner.emit(HubEvent::Disconnected {
            server: entry.config.name.clone(),
            reason: DisconnectReason::Requested,
            exit_code: None,
            detail: None,
        });
        Ok(())
    }

    /// Disconnects every server.
    pub async fn close(&self) {
        let names = self.inner.server_names();
        let disconnects = names.iter().map(|name| self.disconnect(name));
        futures::future::join_all(disconnects).await;
    }

    /// Every server in the hub, in connection order.
    pub fn list_connections(&self) -> Vec<ConnectionInfo> {
        self.inner
            .entries()
            .iter()
            .map(|entry| {
                let connected = *entry.connected_at.lock().unwrap_or_else(|e| e.into_inner());
                ConnectionInfo {
                    id: entry.id,
                    name: entry.config.name.clone(),
                    transport: entry.config.transport.kind(),
                    state: entry.state(),
                    tool_count: entry.read_tools().len(),
                    connected_at: connected.map(|(wall, _)| wall),
                    uptime: connected.map(|(_, since)| since.elapsed()),
                    restarts: entry.restarts.load(Ordering::SeqCst),
                    last_error: entry.last_error(),
                }
            })
            .collect()
    }

    /// Every tool of every server, with its exposed name and full spec, in
    /// (server, tool) order. Exposed names are only `[A-Za-z0-9_-]`, at most
    /// 64 characters, unique (see [`crate::naming`]).
    pub fn list_tools(&self) -> Vec<HubTool> {
        let names = self.inner.names.read().unwrap_or_else(|e| e.into_inner());
        let entries = self.inner.entries();
        names
            .iter()
            .filter_map(|row| {
                let entry = entries.iter().find(|e| e.config.name == row.server())?;
                let tools = entry.read_tools();
                let info = tools.iter().find(|t| t.name == row.tool())?;
                Some(HubTool {
                    server: row.server().to_owned(),
                    tool: row.tool().to_owned(),
                    exposed: row.exposed().to_owned(),
                    spec: info.to_spec(row.exposed()),
                })
            })
            .collect()
    }

    /// Calls `tool` (the server's own name for it) on `server`. A server
    /// that is restarting is waited for, up to its call timeout; calls are
    /// capped per server when `max_concurrent_calls` is set.
    ///
    /// # Errors
    /// [`HubError::NoServer`], [`HubError::ToolNotFound`] (listing what the
    /// server has), [`HubError::Unavailable`] (restarting past the timeout,
    /// failed, or disconnected while the call was pending: "connection
    /// closed"), and [`HubError::Mcp`] for the call's own failure.
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<ToolResult, HubError> {
        self.call_tool_inner(server, tool, arguments, None).await
    }

    /// [`Hub::call_tool`] with its own timeout instead of the server's call
    /// timeout (it bounds the wait for a restart, for a free slot under
    /// `max_concurrent_calls`, and the call itself).
    ///
    /// # Errors
    /// As [`Hub::call_tool`].
    pub async fn call_tool_with_timeout(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<ToolResult, HubError> {
        self.call_tool_inner(server, tool, arguments, Some(timeout))
            .await
    }

    async fn call_tool_inner(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        timeout: Option<Duration>,
    ) -> Result<ToolResult, HubError> {
        let entry = self.entry(server)?;
        if !entry.has_tool(tool) {
            return Err(HubError::ToolNotFound {
                server: server.to_owned(),
                tool: tool.to_owned(),
                available: entry.tool_names(),
            });
        }
        let argument_names = argument_names(&arguments);
        let started = Instant::now();
        let result = self.call_ready(&entry, tool, arguments, timeout).await;
        let outcome = match &result {
            Ok(result) if result.is_error => CallOutcome::ToolError,
            Ok(_) => CallOutcome::Ok,
            Err(HubError::Mcp(error)) if error.is_timeout() => CallOutcome::Timeout,
            Err(_) => CallOutcome::Error,
        };
        self.inner.emit(HubEvent::ToolCall {
            server: server.to_owned(),
            tool: tool.to_owned(),
            duration: started.elapsed(),
            outcome,
            argument_names,
            error: result.as_ref().err().map(ToString::to_string),
        });
        result
    }

    async fn call_ready(
        &self,
        entry: &Arc<Entry>,
        tool: &str,
        arguments: Value,
        timeout: Option<Duration>,
    ) -> Result<ToolResult, HubError> {
        let timeout = timeout.unwrap_or_else(|| entry::wait_limit(entry));
        let unavailable = |state: ServerState, reason: String| HubError::Unavailable {
            server: entry.config.name.clone(),
            state: state.to_string(),
            reason,
        };
        let deadline = tokio::time::Instant::now() + timeout;
        let mut state = entry.state.subscribe();
        loop {
            let settled = tokio::time::timeout_at(
                deadline,
                state.wait_for(|s| {
                    matches!(
                        s,
                        ServerState::Ready | ServerState::Failed | ServerState::Closed
                    )
                }),
            )
            .await
            .is_ok();
            // The watch guard is dropped above: a future holding it is not Send.
            if !settled || entry.state() != ServerState::Ready {
                let fallback = if settled {
                    "connection closed"
                } else {
                    "it did not come back in time"
                };
                let reason = entry.last_error().unwrap_or_else(|| fallback.to_owned());
                return Err(unavailable(entry.state(), reason));
            }
            if entry.server.handle().is_connected() {
                break;
            }
            // It just died and the supervisor has not said so yet: wait for
            // the restart instead of calling a dead session.
            let _ = tokio::time::timeout_at(deadline, state.wait_for(|s| *s != ServerState::Ready))
                .await
                .is_ok();
        }
        let _permit = match &entry.permits {
            Some(permits) => match tokio::time::timeout_at(deadline, permits.acquire()).await {
                Ok(permit) => permit.ok(),
                Err(_) => {
                    return Err(unavailable(
                        ServerState::Ready,
                        format!(
                            "too many calls in flight (max_concurrent_calls = {}); none finished in time",
                            entry.config.max_concurrent_calls.unwrap_or_default()
                        ),
                    ));
                }
            },
            None => None,
        };
        match entry
            .server
            .call_tool_with_timeout(tool, arguments, timeout)
            .await
        {
            Ok(result) => Ok(result),
            Err(McpError::Closed { .. }) if entry.stop.is_cancelled() => Err(unavailable(
                ServerState::Closed,
                "connection closed: the server was disconnected while the call was pending"
                    .to_owned(),
            )),
            Err(error) => Err(error.into()),
        }
    }

    /// Calls a tool by its exposed name (as [`Hub::list_tools`] gives it),
    /// routed by the name table, never by splitting the name.
    ///
    /// # Errors
    /// [`HubError::NoExposedTool`] for an unknown name; otherwise as
    /// [`Hub::call_tool`].
    pub async fn call(&self, exposed: &str, arguments: Value) -> Result<ToolResult, HubError> {
        let (server, tool) = self.route(exposed)?;
        self.call_tool(&server, &tool, arguments).await
    }

    /// [`Hub::call`] with its own timeout (see
    /// [`Hub::call_tool_with_timeout`]).
    ///
    /// # Errors
    /// As [`Hub::call`].
    pub async fn call_with_timeout(
        &self,
        exposed: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<ToolResult, HubError> {
        let (server, tool) = self.route(exposed)?;
        self.call_tool_with_timeout(&server, &tool, arguments, timeout)
            .await
    }

    /// The (server, tool) an exposed name routes to.
    fn route(&self, exposed: &str) -> Result<(String, String), HubError> {
        let names = self.inner.names.read().unwrap_or_else(|e| e.into_inner());
        names
            .resolve(exposed)
            .map(|(server, tool)| (server.to_owned(), tool.to_owned()))
            .ok_or_else(|| HubError::NoExposedTool {
                name: exposed.to_owned(),
                available: names.iter().map(|row| row.exposed().to_owned()).collect(),
            })
    }

    /// The hub's tools as a [`ToolRegistry`] of [`FunctionTool`]s under
    /// their exposed names, for an agent loop that also has native tools.
    /// A snapshot: call it again after the tool set changed.
    pub fn registry(&self) -> ToolRegistry {
        let mut registry = ToolRegistry::new();
        for tool in self.list_tools() {
            let hub = self.clone();
            let exposed = tool.exposed.clone();
            let function = FunctionTool::new(tool.spec, move |arguments| {
                let hub = hub.clone();
                let exposed = exposed.clone();
                async move {
                    hub.call(&exposed, arguments)
                        .await
                        .map_err(|error| ToolError::call(exposed.clone(), error))
                }
            });
            // Exposed names are unique and valid by construction.
            let _ = registry.register(function);
        }
        registry
    }
}

/// Builds the server object for a config.
fn build_server(config: &ServerConfig) -> Result<Box<dyn McpServer>, HubError> {
    let options = config.options();
    match &config.transport {
        TransportConfig::Stdio(params) => Ok(Box::new(
            McpServerStdio::new(params.clone())
                .with_name(config.name.clone())
                .with_options(options),
        )),
        transport => match transport.streamable_http_params() {
            Some(params) => Ok(Box::new(
                McpServerStreamableHttp::new(params)
                    .with_name(config.name.clone())
                    .with_options(options),
            )),
            None => Err(HubError::Unsupported {
                server: config.name.clone(),
                message: format!(
                    "the {} transport is not supported yet; use stdio or Streamable HTTP (type \"http\")",
                    transport.kind()
                ),
            }),
        },
    }
}

/// The top-level argument names of a call (never the values).
fn argument_names(arguments: &Value) -> Vec<String> {
    arguments
        .as_object()
        .map(|map| map.keys().cloned().collect())
        .unwrap_or_default()
}
