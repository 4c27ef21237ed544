//! [`McpServerStreamableHttp`]: a server at a URL.

use std::{
    collections::{BTreeMap, HashMap},
    sync::Arc,
    time::Duration,
};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::{
    model::ProtocolVersion,
    service::{ClientLifecycleMode, ClientServiceExt},
    transport::{
        StreamableHttpClientTransport, common::client_side_sse::SseRetryPolicy,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use toolbridge_core::BoxFuture;

use super::{
    McpError, McpServer, McpServerHandle, McpServerOptions,
    client::BridgeClient,
    describe,
    handle::handle_builders,
    redact::Redactions,
    session::{Link, Session},
};

/// Headers the transport sets itself; a configured value for one of them is
/// dropped (with a warning) so the required values are never replaced.
const TRANSPORT_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// How often a broken SSE stream is resumed before the requests waiting on
/// it fail: rmcp's default retries forever, which leaves a call to a dead
/// server hanging until its timeout.
const SSE_RETRY_DELAYS: [Duration; 3] = [
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_secs(1),
];

/// SSE resumption with [`SSE_RETRY_DELAYS`], then give up.
#[derive(Debug)]
struct BoundedRetry;

impl SseRetryPolicy for BoundedRetry {
    fn retry(&self, current_times: usize) -> Option<Duration> {
        SSE_RETRY_DELAYS.get(current_times).copied()
    }
}

/// Where a Streamable HTTP server is: the seed's
/// `MCPServerStreamableHttpParams` (`url`, `headers`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerStreamableHttpParams {
    /// The MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`.
    pub url: String,
    /// Extra headers for every request, e.g. `Authorization: Bearer …`.
    /// They are merged with (never replace) the transport's `Accept`,
    /// `Content-Type` and session headers.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

/// An MCP server reached over Streamable HTTP (MCP specification
/// 2025-11-25, "Transports" → "Streamable HTTP"; and the 2026-07-28
/// stateless form), through rmcp's reqwest-based transport.
///
/// A `404` for an expired session re-initializes once and retries (rmcp's
/// `reinit_on_expired_session`); `cleanup()` ends the session with
/// `DELETE`.
///
/// # Examples
/// ```no_run
/// use toolbridge::mcp::{McpServer, McpServerStreamableHttp};
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = McpServerStreamableHttp::url("http://127.0.0.1:3001/mcp")
///     .with_header("Authorization", "Bearer secret-token")
///     .with_name("everything");
/// server.connect().await?;
/// let tools = server.list_tools().await?;
/// println!("{} tools", tools.len());
/// server.cleanup().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct McpServerStreamableHttp {
    params: McpServerStreamableHttpParams,
    handle: McpServerHandle,
}

impl McpServerStreamableHttp {
    /// A server at `params.url`, named after the URL's host.
    pub fn new(params: McpServerStreamableHttpParams) -> Self {
        let name = default_name(&params.url);
        Self {
            params,
            handle: McpServerHandle::new(name, McpServerOptions::default()),
        }
    }

    /// A server at `url`, without extra headers.
    pub fn url(url: impl Into<String>) -> Self {
        Self::new(McpServerStreamableHttpParams {
            url: url.into(),
            headers: BTreeMap::new(),
        })
    }

    /// Adds a header sent with every request.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.params.headers.insert(name.into(), value.into());
        self
    }

    handle_builders!();

    /// Where the server is.
    pub fn params(&self) -> &McpServerStreamableHttpParams {
        &self.params
    }

    /// The secrets of this server's configuration: header values and the
    /// URL's query.
    fn redactions(&self) -> Redactions {
        Redactions::default()
            .with_url(&self.params.url)
            .with_header_values(self.params.headers.values())
    }

    fn invalid(&self, message: String) -> McpError {
        McpError::InvalidConfig {
            server: self.handle.name().to_owned(),
            message,
        }
    }

    fn transport_config(&self) -> Result<StreamableHttpClientTransportConfig, McpError> {
        let url = reqwest::Url::parse(&self.params.url)
            .map_err(|e| self.invalid(format!("invalid URL {:?}: {e}", self.params.url)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(self.invalid(format!(
                "the URL {:?} is not http or https",
                self.params.url
            )));
        }
        let mut headers = HashMap::new();
        for (name, value) in &self.params.headers {
            if TRANSPORT_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
                tracing::warn!(
                    server = self.handle.name(), header = %name,
                    "ignoring a configured header the transport sets itself"
                );
                continue;
            }
            let header_name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| self.invalid(format!("invalid header name {name:?}")))?;
            // The value may be a secret: never echo it.
            let header_value = HeaderValue::from_str(value)
                .map_err(|_| self.invalid(format!("invalid value for header {name:?}")))?;
            headers.insert(header_name, header_value);
        }
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.params.url.as_str())
            .custom_headers(headers)
            .reinit_on_expired_session(true)
            .max_json_response_size(self.handle.options().max_message_bytes)
            .max_sse_event_size(self.handle.options().max_message_bytes);
        config.retry_config = Arc::new(BoundedRetry);
        Ok(config)
    }

    async fn start(&self) -> Result<Session, McpError> {
        let config = self.transport_config()?;
        let deadline = Instant::now() + self.handle.options().startup_timeout;
        let auto = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        };
        match self.attempt(config.clone(), auto, deadline).await {
            Err(McpError::Handshake { message, .. }) => {
                // Legacy servers often refuse the discovery probe with an
                // HTTP 400 ("Server not initialized") that rmcp does not read
                // as "legacy"; use the initialize handshake instead.
                tracing::info!(
                    server = self.handle.name(), %message,
                    "discovery failed; retrying with the initialize handshake"
                );
                self.attempt(config, ClientLifecycleMode::Initialize, deadline)
                    .await
            }
            other => other,
        }
    }

    async fn attempt(
        &self,
        config: StreamableHttpClientTransportConfig,
        lifecycle: ClientLifecycleMode,
        deadline: Instant,
    ) -> Result<Session, McpError> {
        let server = self.handle.name_arc();
        let transport = StreamableHttpClientTransport::from_config(config);
        let client = BridgeClient::new(server.clone(), self.handle.tools_changed_sender());
        tokio::select! {
            result = client.serve_with_lifecycle(transport, lifecycle) => match result {
                Ok(running) => Ok(Session::new(
                    server,
                    running,
                    CancellationToken::new(),
                    Link::Http,
                    self.handle.tools_changed_sender(),
                    Arc::new(self.redactions()),
                )),
                Err(error) if describe::worth_initialize_retry(&error) => Err(McpError::Handshake {
                    server: server.to_string(),
                    message: self.redactions().apply(&describe::initialize(&error)),
                    stderr: String::new(),
                }),
                // Nothing answered: another handshake would fail the same way.
                Err(error) => Err(McpError::Unreachable {
                    server: server.to_string(),
                    message: self.redactions().apply(&describe::initialize(&error)),
                }),
            },
            () = tokio::time::sleep_until(deadline) => Err(McpError::StartupTimeout {
                server: server.to_string(),
                after: self.handle.options().startup_timeout,
                stdout: String::new(),
                stderr: String::new(),
            }),
        }
    }
}

/// The URL's host, e.g. `127.0.0.1` for `http://127.0.0.1:3001/mcp`.
fn default_name(url: &str) -> String {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| url.chars().take(64).collect())
}

impl McpServer for McpServerStreamableHttp {
    fn handle(&self) -> &McpServerHandle {
        &self.handle
    }

    fn connect(&self) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(self.handle.connect_with(|| self.start()))
    }
}
