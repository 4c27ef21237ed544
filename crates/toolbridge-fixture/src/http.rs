//! Streamable HTTP mode: rmcp's `StreamableHttpService` at `/mcp` under axum.

use std::{io::Write, net::SocketAddr, sync::Arc};

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
    streamable_http_server::{SessionId, SessionManager, session::local::LocalSessionManager},
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
    let sessions = Sessions {
        server: server.clone(),
        manager: Arc::new(LocalSessionManager::default()),
    };
    let service: StreamableHttpService<FixtureServer, LocalSessionManager> =
        StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::clone(&sessions.manager),
            config,
        );
    let mut router = Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn_with_state(sessions, session_hooks));
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

/// What [`session_hooks`] needs: the `expire_session` marks and rmcp's
/// session manager.
#[derive(Clone)]
struct Sessions {
    server: FixtureServer,
    manager: Arc<LocalSessionManager>,
}

/// Closes a session marked by `expire_session` in rmcp's session manager
/// when its next request arrives, so rmcp answers that request 404 as for
/// any expired session; logs `fixture: session ID expired` to stderr. Also
/// logs every `DELETE` and its status, `fixture: DELETE session ID -> 202
/// Accepted`, so tests can see a client end its session.
async fn session_hooks(State(sessions): State<Sessions>, request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get("mcp-session-id")
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = &id
        && sessions.server.state().take_expiring(id)
    {
        match sessions
            .manager
            .close_session(&SessionId::from(id.as_str()))
            .await
        {
            Ok(()) => log(format_args!("fixture: session {id} expired")),
            Err(error) => log(format_args!(
                "fixture: failed to expire session {id}: {error}"
            )),
        }
    }
    let delete = request.method() == Method::DELETE;
    let response = next.run(request).await;
    if delete {
        let id = id.as_deref().unwrap_or("-");
        log(format_args!(
            "fixture: DELETE session {id} -> {}",
            response.status()
        ));
    }
    response
}

/// Writes one line to stderr in a single write, so it is not interleaved
/// with rmcp's own log lines.
fn log(line: std::fmt::Arguments<'_>) {
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
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
