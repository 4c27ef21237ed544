//! Streamable HTTP transport behaviours against the fixture server process:
//! configured headers are merged with the transport's own on every request,
//! a `404` for an expired session re-initializes once and retries, and
//! `cleanup()` ends the session with `DELETE`.

mod common;

use common::HttpFixture;
use serde_json::{Value, json};
use toolbridge::mcp::{McpServer, McpServerStreamableHttp};

/// A client for `fixture` with the headers of these tests configured.
fn client(fixture: &HttpFixture) -> McpServerStreamableHttp {
    McpServerStreamableHttp::url(&fixture.url)
        .with_header("X-Api-Key", "k1")
        .with_header("Authorization", "Bearer t1")
        .with_header("Accept", "text/plain")
        .with_name("http-fixture")
}

/// The headers of one `tools/call` as the fixture saw them.
async fn seen_headers(server: &McpServerStreamableHttp) -> Value {
    let result = server
        .call_tool("headers", json!({}))
        .await
        .expect("call headers");
    serde_json::from_str(&result.text_content()).expect("headers returns JSON")
}

/// Every value the request carried for the header `name` (lowercase).
fn values(headers: &Value, name: &str) -> Vec<String> {
    headers[name]
        .as_array()
        .map(|values| {
            values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The legacy session id the fixture saw on a `tools/call`.
async fn session_id(server: &McpServerStreamableHttp) -> String {
    let headers = seen_headers(server).await;
    let ids = values(&headers, "mcp-session-id");
    assert_eq!(ids.len(), 1, "expected one Mcp-Session-Id, got {headers}");
    ids[0].clone()
}

async fn initialize_count(server: &McpServerStreamableHttp) -> String {
    server
        .call_tool("initialize_count", json!({}))
        .await
        .expect("call initialize_count")
        .text_content()
}

/// The configured headers arrive exactly once each, and the transport's own
/// `Accept` (both media types the spec requires) is kept, not replaced by the
/// configured `Accept: text/plain`.
fn assert_merged(headers: &Value) {
    assert_eq!(values(headers, "x-api-key"), ["k1"], "{headers}");
    assert_eq!(values(headers, "authorization"), ["Bearer t1"], "{headers}");
    let accept = values(headers, "accept").join(", ");
    assert!(accept.contains("application/json"), "accept: {accept:?}");
    assert!(accept.contains("text/event-stream"), "accept: {accept:?}");
    // toolbridge drops a configured value for a header the transport sets
    // itself (rmcp would refuse it as reserved).
    assert!(!accept.contains("text/plain"), "accept: {accept:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_headers_are_merged_with_the_transport_headers_in_the_2026_era() {
    let fixture = HttpFixture::start(&[]);
    let server = client(&fixture);
    server.connect().await.expect("connect over HTTP");
    assert_eq!(
        server.handle().protocol_version().as_deref(),
        Some("2026-07-28")
    );
    for _ in 0..2 {
        assert_merged(&seen_headers(&server).await);
    }
    server.cleanup().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_headers_are_merged_with_the_session_headers_in_a_legacy_session() {
    let fixture = HttpFixture::start(&["--protocol", "legacy"]);
    let server = client(&fixture);
    server.connect().await.expect("connect over HTTP");
    assert_eq!(
        server.handle().protocol_version().as_deref(),
        Some("2025-06-18")
    );
    for _ in 0..2 {
        let headers = seen_headers(&server).await;
        assert_merged(&headers);
        assert_eq!(values(&headers, "mcp-session-id").len(), 1, "{headers}");
        assert_eq!(
            values(&headers, "mcp-protocol-version"),
            ["2025-06-18"],
            "{headers}"
        );
    }
    server.cleanup().await.unwrap();
}

/// Connects to a fixture started with `args` (a legacy mode), expires the
/// session, and checks the next call succeeds through exactly one new
/// `initialize` in a new session.
async fn expired_session_is_reinitialized_once(args: &[&str]) {
    let fixture = HttpFixture::start(args);
    let server = client(&fixture);
    server.connect().await.expect("connect over HTTP");
    let echo = server
        .call_tool("echo", json!({"message": "before"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: before");
    assert_eq!(initialize_count(&server).await, "1");
    let first = session_id(&server).await;

    let expired = server.call_tool("expire_session", json!({})).await.unwrap();
    assert!(!expired.is_error, "{}", expired.text_content());
    // The next request finds the session closed and gets 404; rmcp
    // re-initializes and sends the call again.
    let echo = server
        .call_tool("echo", json!({"message": "after"}))
        .await
        .expect("retried call");
    assert_eq!(echo.text_content(), "Echo: after");
    fixture
        .wait_for_stderr_line(&format!("fixture: session {first} expired"))
        .await;

    assert_eq!(initialize_count(&server).await, "2");
    let second = session_id(&server).await;
    assert_ne!(second, first, "the retry must run in a new session");
    // The configured headers survive the re-initialization.
    assert_merged(&seen_headers(&server).await);
    server.cleanup().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_404_for_an_expired_session_reinitializes_once_and_retries_the_call() {
    expired_session_is_reinitialized_once(&["--protocol", "legacy"]).await;
}

/// This server refuses the discovery probe with HTTP 400, so toolbridge
/// connects with a second, initialize-only transport; its session must
/// recover the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_session_reached_after_a_refused_discovery_probe_also_reinitializes() {
    expired_session_is_reinitialized_once(&["--protocol", "legacy-odd"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cleanup_ends_a_legacy_session_with_delete() {
    let fixture = HttpFixture::start(&["--protocol", "legacy"]);
    let server = client(&fixture);
    server.connect().await.expect("connect over HTTP");
    let id = session_id(&server).await;
    server.cleanup().await.unwrap();
    fixture
        .wait_for_stderr_line(&format!("fixture: DELETE session {id} -> 202 Accepted"))
        .await;
}
