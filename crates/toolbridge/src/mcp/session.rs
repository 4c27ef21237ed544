//! A live MCP session: the rmcp client service plus what toolbridge adds
//! around it (closed / lost signals, per-request timeouts, pagination
//! guards, result conversion, the stdio child process).

use std::{
    collections::HashSet,
    sync::{
        Arc, OnceLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use rmcp::{
    RoleClient,
    model::{
        CallToolRequest, CallToolRequestParams, ClientRequest, ListToolsRequest,
        PaginatedRequestParams, PingRequest, RequestMetaObject, ServerResult,
    },
    service::{PeerRequestOptions, RunningService, ServiceError},
};
use serde_json::Value;
use tokio::{io::AsyncWriteExt, process::ChildStdin};
use tokio_util::sync::CancellationToken;
use toolbridge_core::ToolResult;

use super::{
    McpError, McpToolInfo,
    client::{self, BridgeClient},
    convert, describe,
    line_transport::{StdoutNotes, write_line},
    multiplex::{Multiplexer, Reply},
    process::ChildProcess,
    redact::Redactions,
};

/// At most this many `tools/list` pages are read before giving up.
pub const MAX_TOOL_LIST_PAGES: usize = 1000;

/// The server's stdin, shared with the line transport so a cleanup can close
/// it at once, without waiting for the rmcp service loop.
pub(crate) type SharedStdin = super::line_transport::SharedWriter<ChildStdin>;

/// What a session runs over.
pub(crate) enum Link {
    /// A child process (stdio transport), with toolbridge's fast path for
    /// `tools/call` on the same pipes.
    Stdio {
        child: ChildProcess,
        stdin: SharedStdin,
        multiplexer: Arc<Multiplexer>,
        /// What the transport saw on stdout besides protocol.
        notes: Arc<StdoutNotes>,
    },
    /// A Streamable HTTP connection.
    Http,
}

/// A connected session with one server.
pub(crate) struct Session {
    server: Arc<str>,
    running: std::sync::Mutex<Option<RunningService<RoleClient, BridgeClient>>>,
    peer: rmcp::Peer<RoleClient>,
    /// Cancelled by `cleanup()`: pending and new calls fail with `Closed`.
    closed: CancellationToken,
    /// Cancelled when the transport ends (stdout EOF, or a failed liveness
    /// ping over HTTP): calls fail with `Exited` / `ConnectionLost` at once.
    lost: CancellationToken,
    /// Why an HTTP session was lost.
    lost_reason: Arc<OnceLock<String>>,
    /// Requests in flight (counted for the HTTP liveness watchdog).
    pending: Arc<AtomicUsize>,
    /// The per-request `_meta` a 2026-07-28 (stateless) server needs on
    /// every request; `None` in the `initialize` era.
    request_meta: Option<Value>,
    /// Secrets configured for this server, hidden in error messages.
    redactions: Arc<Redactions>,
    link: Link,
}

/// While requests are in flight over HTTP, the server is pinged this often:
/// a legacy (SSE) session whose server died leaves its pending requests
/// waiting forever otherwise, since rmcp does not fail them when the event
/// stream breaks.
const HTTP_LIVENESS_INTERVAL: Duration = Duration::from_secs(2);

/// How long a liveness ping may take.
const HTTP_PING_TIMEOUT: Duration = Duration::from_secs(10);

/// Pings the server while requests are pending; cancels `lost` when the
/// transport fails. A JSON-RPC error or a slow answer still proves the
/// server is there.
async fn watch_http_liveness(
    peer: rmcp::Peer<RoleClient>,
    pending: Arc<AtomicUsize>,
    closed: CancellationToken,
    lost: CancellationToken,
    lost_reason: Arc<OnceLock<String>>,
) {
    loop {
        tokio::select! {
            () = closed.cancelled() => return,
            () = lost.cancelled() => return,
            () = tokio::time::sleep(HTTP_LIVENESS_INTERVAL) => {}
        }
        if pending.load(Ordering::SeqCst) == 0 {
            continue;
        }
        let ping = ClientRequest::PingRequest(PingRequest::default());
        let options = PeerRequestOptions::with_timeout(HTTP_PING_TIMEOUT);
        let outcome = match peer.send_request_with_option(ping, options).await {
            Ok(handle) => handle.await_response().await.map(|_| ()),
            Err(error) => Err(error),
        };
        match outcome {
            Ok(()) | Err(ServiceError::McpError(_) | ServiceError::Timeout { .. }) => {}
            Err(error) => {
                let _ = lost_reason.set(format!(
                    "the server stopped answering (liveness ping failed: {})",
                    describe::service(&error)
                ));
                lost.cancel();
                return;
            }
        }
    }
}

impl Session {
    pub(crate) fn new(
        server: Arc<str>,
        running: RunningService<RoleClient, BridgeClient>,
        lost: CancellationToken,
        link: Link,
        tools_changed: tokio::sync::watch::Sender<u64>,
        redactions: Arc<Redactions>,
    ) -> Self {
        let peer = running.peer().clone();
        let closed = CancellationToken::new();
        let lost_reason = Arc::new(OnceLock::new());
        let pending = Arc::new(AtomicUsize::new(0));
        if matches!(link, Link::Http) {
            tokio::spawn(watch_http_liveness(
                peer.clone(),
                Arc::clone(&pending),
                closed.clone(),
                lost.clone(),
                Arc::clone(&lost_reason),
            ));
        }
        let request_meta = stateless_request_meta(&peer);
        if request_meta.is_some() {
            tokio::spawn(listen_for_tool_list_changes(
                peer.clone(),
                tools_changed,
                closed.clone(),
                lost.clone(),
            ));
        }
        Self {
            server,
            running: std::sync::Mutex::new(Some(running)),
            peer,
            closed,
            lost,
            lost_reason,
            pending,
            request_meta,
            redactions,
            link,
        }
    }

    /// The server's process id, for stdio sessions.
    pub(crate) fn pid(&self) -> Option<u32> {
        match &self.link {
            Link::Stdio { child, .. } => Some(child.pid()),
            Link::Http => None,
        }
    }

    /// The negotiated protocol version, e.g. `2025-11-25` or `2026-07-28`.
    pub(crate) fn protocol_version(&self) -> Option<String> {
        self.peer
            .peer_info()
            .map(|info| info.protocol_version.to_string())
    }

    /// Whether the transport has ended (the server exited or hung up).
    pub(crate) fn is_lost(&self) -> bool {
        self.lost.is_cancelled()
    }

    /// Completes when the session ends: the transport is lost or
    /// `cleanup()` closed it.
    pub(crate) async fn ended(&self) {
        tokio::select! {
            () = self.lost.cancelled() => {}
            () = self.closed.cancelled() => {}
        }
    }

    /// Sends one request and waits for its result, failing at once when the
    /// session is closed or lost, and after `timeout` otherwise (rmcp then
    /// sends `notifications/cancelled` for the request).
    async fn request(
        &self,
        request: ClientRequest,
        phase: &str,
        timeout: Duration,
    ) -> Result<ServerResult, McpError> {
        if self.closed.is_cancelled() {
            return Err(self.closed_error(phase));
        }
        if self.lost.is_cancelled() {
            return Err(self.lost_error(phase).await);
        }
        let options = PeerRequestOptions::with_timeout(timeout);
        let _pending = PendingGuard::new(&self.pending);
        let outcome = tokio::select! {
            biased;
            _ = self.closed.cancelled() => return Err(self.closed_error(phase)),
            _ = self.lost.cancelled() => return Err(self.lost_error(phase).await),
            outcome = async {
                let handle = self.peer.send_request_with_option(request, options).await?;
                handle.await_response().await
            } => outcome,
        };
        match outcome {
            Ok(result) => Ok(result),
            Err(error) => Err(self.map_service_error(error, phase, timeout).await),
        }
    }

    async fn map_service_error(
        &self,
        error: ServiceError,
        phase: &str,
        timeout: Duration,
    ) -> McpError {
        match error {
            ServiceError::McpError(data) => McpError::Rpc {
                server: self.server.to_string(),
                phase: phase.to_owned(),
                code: data.code.0,
                message: self.redactions.apply(&data.message),
                data: data.data,
            },
            ServiceError::Timeout { .. } => McpError::Timeout {
                server: self.server.to_string(),
                phase: phase.to_owned(),
                after: timeout,
            },
            _ if self.closed.is_cancelled() => self.closed_error(phase),
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
                if matches!(self.link, Link::Stdio { .. }) =>
            {
                self.lost_error(phase).await
            }
            ServiceError::UnexpectedResponse => McpError::Protocol {
                server: self.server.to_string(),
                phase: phase.to_owned(),
                message: "the server answered with a result of the wrong type".to_owned(),
            },
            other => McpError::ConnectionLost {
                server: self.server.to_string(),
                phase: phase.to_owned(),
                message: self.redactions.apply(&describe::service(&other)),
            },
        }
    }

    fn closed_error(&self, phase: &str) -> McpError {
        McpError::Closed {
            server: self.server.to_string(),
            phase: phase.to_owned(),
        }
    }

    /// The error for a session whose transport ended: for stdio, the exit
    /// status and stderr tail of the server.
    pub(crate) async fn lost_error(&self, phase: &str) -> McpError {
        match &self.link {
            Link::Stdio { notes, .. } if notes.broken().is_some() => McpError::ConnectionLost {
                server: self.server.to_string(),
                phase: phase.to_owned(),
                message: notes.broken().unwrap_or_default().to_owned(),
            },
            Link::Stdio { child, .. } => {
                let status = child.describe_exit(Duration::from_secs(1)).await;
                let stderr = child.stderr_after_exit(Duration::from_millis(300)).await;
                McpError::Exited {
                    server: self.server.to_string(),
                    phase: phase.to_owned(),
                    status,
                    stderr,
                }
            }
            Link::Http => McpError::ConnectionLost {
                server: self.server.to_string(),
                phase: phase.to_owned(),
                message: self.redactions.apply(
                    self.lost_reason
                        .get()
                        .map_or("the connection to the server was closed", String::as_str),
                ),
            },
        }
    }

    /// `tools/list`, following `nextCursor` to the end.
    ///
    /// A cursor seen twice, or more than [`MAX_TOOL_LIST_PAGES`] pages, ends
    /// with [`McpError::Protocol`] instead of an endless loop. Tools that
    /// cannot be used (no name, an invalid name, a schema that is not an
    /// object) are skipped with a warning naming them.
    pub(crate) async fn list_tools(&self, timeout: Duration) -> Result<Vec<McpToolInfo>, McpError> {
        let mut tools = Vec::new();
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        for page in 1..=MAX_TOOL_LIST_PAGES {
            let params = cursor
                .clone()
                .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
            let request = ClientRequest::ListToolsRequest(ListToolsRequest {
                method: Default::default(),
                params,
                extensions: Default::default(),
            });
            let result = self.request(request, "tools/list", timeout).await?;
            let page_value = result_to_value(result);
            let Some(items) = page_value.get("tools").and_then(Value::as_array) else {
                return Err(McpError::Protocol {
                    server: self.server.to_string(),
                    phase: "tools/list".to_owned(),
                    message: format!("page {page} has no `tools` array"),
                });
            };
            tools.extend(
                items
                    .iter()
                    .filter_map(|item| McpToolInfo::from_wire(&self.server, item)),
            );
            match page_value.get("nextCursor").and_then(Value::as_str) {
                None | Some("") => return Ok(tools),
                Some(next) if !seen.insert(next.to_owned()) => {
                    return Err(McpError::Protocol {
                        server: self.server.to_string(),
                        phase: "tools/list".to_owned(),
                        message: format!(
                            "the server returned the cursor {next:?} a second time (page {page}); stopping instead of looping forever"
                        ),
                    });
                }
                Some(next) => cursor = Some(next.to_owned()),
            }
        }
        Err(McpError::Protocol {
            server: self.server.to_string(),
            phase: "tools/list".to_owned(),
            message: format!("the tool list did not end after {MAX_TOOL_LIST_PAGES} pages"),
        })
    }

    /// `tools/call`.
    pub(crate) async fn call_tool(
        &self,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<ToolResult, McpError> {
        if let Link::Stdio {
            stdin, multiplexer, ..
        } = &self.link
        {
            return self
                .call_tool_fast(stdin, multiplexer, tool, arguments, timeout)
                .await;
        }
        let phase = format!("tools/call '{tool}'");
        let mut params = CallToolRequestParams::new(tool.to_owned());
        match arguments {
            Value::Object(map) => params = params.with_arguments(map),
            Value::Null => params = params.with_arguments(Default::default()),
            other => {
                return Err(McpError::Protocol {
                    server: self.server.to_string(),
                    phase,
                    message: format!("arguments must be a JSON object, not {other}"),
                });
            }
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        match self.request(request, &phase, timeout).await? {
            ServerResult::CallToolResult(result) => Ok(convert::tool_result(result)),
            // A reply without `content` decodes as another variant.
            ServerResult::EmptyResult(_) => Ok(ToolResult::default()),
            ServerResult::CustomResult(custom) => Ok(convert::tool_result_from_value(custom.0)),
            other => Err(McpError::Protocol {
                server: self.server.to_string(),
                phase,
                message: format!("expected a CallToolResult, got {}", result_to_value(other)),
            }),
        }
    }

    /// `tools/call` on the stdio fast path (see [`super::multiplex`]): the
    /// request line is written here and the reply comes back through the
    /// multiplexer, with the same timeout, cancellation, closed and lost
    /// handling as the rmcp path.
    async fn call_tool_fast(
        &self,
        stdin: &SharedStdin,
        multiplexer: &Arc<Multiplexer>,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<ToolResult, McpError> {
        let phase = || format!("tools/call '{tool}'");
        if self.closed.is_cancelled() {
            return Err(self.closed_error(&phase()));
        }
        if self.lost.is_cancelled() {
            return Err(self.lost_error(&phase()).await);
        }
        let arguments = match arguments {
            Value::Object(map) => Value::Object(map),
            Value::Null => Value::Object(Default::default()),
            other => {
                return Err(McpError::Protocol {
                    server: self.server.to_string(),
                    phase: phase(),
                    message: format!("arguments must be a JSON object, not {other}"),
                });
            }
        };
        let (id, reply) = multiplexer.register();
        let mut pending = PendingCall {
            multiplexer,
            stdin,
            id,
            answered: false,
        };
        let line = encode_call(id, tool, &arguments, self.request_meta.as_ref());
        if write_line(stdin, &line).await.is_err() {
            pending.answered = true;
            return Err(if self.closed.is_cancelled() {
                self.closed_error(&phase())
            } else {
                self.lost_error(&phase()).await
            });
        }
        let reply = tokio::select! {
            biased;
            reply = reply => reply,
            () = self.closed.cancelled() => return Err(self.closed_error(&phase())),
            () = self.lost.cancelled() => return Err(self.lost_error(&phase()).await),
            () = tokio::time::sleep(timeout) => {
                pending.cancel("request timeout").await;
                return Err(McpError::Timeout {
                    server: self.server.to_string(),
                    phase: phase(),
                    after: timeout,
                });
            }
        };
        pending.answered = true;
        match reply {
            Ok(Reply::Result(raw)) => {
                convert::tool_result_from_raw(raw.get()).map_err(|message| McpError::Protocol {
                    server: self.server.to_string(),
                    phase: phase(),
                    message,
                })
            }
            Ok(Reply::Error(error)) => Err(McpError::Rpc {
                server: self.server.to_string(),
                phase: phase(),
                code: error.code,
                message: self.redactions.apply(&error.message),
                data: error.data,
            }),
            // The multiplexer dropped the request: the transport is gone.
            Err(_) => Err(self.lost_error(&phase()).await),
        }
    }

    /// Closes the session: pending and later calls fail with `Closed` at
    /// once; for stdio, stdin is closed and the process group is terminated
    /// (SIGTERM, then SIGKILL after 5 s); for HTTP, the session is ended
    /// with `DELETE`. Idempotent.
    pub(crate) async fn shutdown(&self) {
        self.closed.cancel();
        let running = self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match &self.link {
            Link::Stdio { child, stdin, .. } => {
                if let Some(mut writer) = stdin.lock().await.take() {
                    let _ = writer.flush().await;
                    let _ = writer.shutdown().await;
                }
                // The service loop ends on its own once stdout closes.
                drop(running);
                child.terminate().await;
            }
            Link::Http => {
                if let Some(mut running) = running {
                    // Lets the transport worker end the session (DELETE).
                    let _ = tokio::time::timeout(Duration::from_secs(3), running.close()).await;
                }
            }
        }
    }
}

/// In the 2026-07-28 era a server sends `notifications/tools/list_changed`
/// only on a `subscriptions/listen` stream that asked for it: open one and
/// bump the same counter the legacy notification bumps.
async fn listen_for_tool_list_changes(
    peer: rmcp::Peer<RoleClient>,
    tools_changed: tokio::sync::watch::Sender<u64>,
    closed: CancellationToken,
    lost: CancellationToken,
) {
    let filter = rmcp::model::SubscriptionFilter::builder()
        .tools_list_changed()
        .build();
    let listen = async {
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(error) => {
                tracing::debug!(%error, "the server did not open a tools/list_changed subscription");
                return;
            }
        };
        while let Ok(Some(notification)) = subscription.next().await {
            if matches!(
                notification,
                rmcp::model::ServerNotification::ToolListChangedNotification(_)
            ) {
                tools_changed.send_modify(|n| *n += 1);
            }
        }
    };
    tokio::select! {
        () = listen => {}
        () = closed.cancelled() => {}
        () = lost.cancelled() => {}
    }
}

/// A fast-path request until it is answered: forgets the id on drop, and
/// tells the server with `notifications/cancelled` when the caller gave up
/// (dropped the call) before the reply.
struct PendingCall<'a> {
    multiplexer: &'a Arc<Multiplexer>,
    stdin: &'a SharedStdin,
    id: u64,
    answered: bool,
}

impl PendingCall<'_> {
    async fn cancel(&mut self, reason: &str) {
        self.answered = true;
        self.multiplexer.forget(self.id);
        let _ = write_line(self.stdin, &encode_cancel(self.id, reason)).await;
    }
}

impl Drop for PendingCall<'_> {
    fn drop(&mut self) {
        self.multiplexer.forget(self.id);
        if self.answered {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let stdin = Arc::clone(self.stdin);
            let line = encode_cancel(self.id, "the caller stopped waiting");
            runtime.spawn(async move {
                let _ = write_line(&stdin, &line).await;
            });
        }
    }
}

/// `{"jsonrpc":"2.0","id":"tb-N","method":"tools/call","params":{…}}\n`.
fn encode_call(id: u64, tool: &str, arguments: &Value, meta: Option<&Value>) -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct Params<'a> {
        name: &'a str,
        arguments: &'a Value,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<&'a Value>,
    }
    #[derive(serde::Serialize)]
    struct Request<'a> {
        jsonrpc: &'static str,
        id: String,
        method: &'static str,
        params: Params<'a>,
    }
    let request = Request {
        jsonrpc: "2.0",
        id: Multiplexer::wire_id(id),
        method: "tools/call",
        params: Params {
            name: tool,
            arguments,
            meta,
        },
    };
    let mut line = serde_json::to_vec(&request).unwrap_or_default();
    line.push(b'\n');
    line
}

/// `notifications/cancelled` for our request `id`.
fn encode_cancel(id: u64, reason: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": Multiplexer::wire_id(id), "reason": reason},
    }))
    .unwrap_or_default();
    line.push(b'\n');
    line
}

/// The `_meta` every request needs in the stateless 2026-07-28 era
/// (protocol version, client info, client capabilities), as rmcp sends it.
fn stateless_request_meta(peer: &rmcp::Peer<RoleClient>) -> Option<Value> {
    let version = peer.peer_info()?.protocol_version.clone();
    if version.has_initialize() {
        return None;
    }
    let (implementation, capabilities) = client::identity();
    serde_json::to_value(RequestMetaObject::with_client_context(
        version,
        implementation,
        capabilities,
    ))
    .ok()
}

/// Counts one request in flight while it lives.
struct PendingGuard<'a>(&'a AtomicUsize);

impl<'a> PendingGuard<'a> {
    fn new(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Self(count)
    }
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A result as JSON, whichever variant rmcp decoded it into.
fn result_to_value(result: ServerResult) -> Value {
    match result {
        ServerResult::CustomResult(custom) => custom.0,
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}
