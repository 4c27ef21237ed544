//! Streamable HTTP mode: rmcp's `StreamableHttpService` at `/mcp` under axum.

use std::{io::Write, net::SocketAddr};

use axum::{
    Router,
    body::{Body, to_bytes},
    extract::{Request, State},
    http::{Method, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    serve::ListenerExt,
};
use rmcp::transport::{
    StreamableHttpServerConfig, StreamableHttpService,
    streamable_http_server::session::local::LocalSessionManager,
};
use serde_json::Value;

use crate::{handler::FixtureServer, quirks::ProtocolMode};

/// Largest request body the legacy `server/discover` interceptor buffers.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// Serves `server` at `http://ADDR/mcp` until the process is killed.
pub async fn serve(
    addr: SocketAddr,
    server: FixtureServer,
    protocol: ProtocolMode,
    json_response: bool,
) -> anyhow::Result<()> {
    let config = StreamableHttpServerConfig::default().with_json_response(json_response);
    let service: StreamableHttpService<FixtureServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
    let mut router = Router::new().nest_service("/mcp", service);
    if protocol.is_legacy() {
        router = router.layer(middleware::from_fn_with_state(protocol, reject_discover));
    }

    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            eprintln!("fixture: failed to set TCP_NODELAY: {error}");
        }
    });
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on http://{local}/mcp")?;
        stdout.flush()?;
    }
    axum::serve(listener, router).await?;
    Ok(())
}

/// Answers `server/discover` POSTs the way a pre-2026 server would; passes
/// everything else through untouched.
async fn reject_discover(
    State(protocol): State<ProtocolMode>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, MAX_BODY).await {
        Ok(bytes) => bytes,
        Err(error) => return (StatusCode::PAYLOAD_TOO_LARGE, error.to_string()).into_response(),
    };
    if let Ok(message) = serde_json::from_slice::<Value>(&bytes)
        && message.get("method").and_then(Value::as_str) == Some("server/discover")
        && let Some(id) = message.get("id")
        && let Some(rejection) = protocol.discover_rejection(id)
    {
        // Legacy TypeScript-SDK servers answer session-less requests with 400.
        let status = match protocol {
            ProtocolMode::LegacyOdd => StatusCode::BAD_REQUEST,
            _ => StatusCode::OK,
        };
        return (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            rejection.to_string(),
        )
            .into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}
