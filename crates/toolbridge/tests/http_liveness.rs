//! A Streamable HTTP server that dies mid-call: pending calls fail promptly
//! with a connection error (not at their timeout), in both eras.

mod common;

use std::time::Duration;

use common::HttpFixture;
use serde_json::json;
use toolbridge::mcp::{McpError, McpServer, McpServerStreamableHttp};

async fn pending_call_fails_when_the_server_dies(args: &[&str]) {
    let mut fixture = HttpFixture::start(args);
    let server = McpServerStreamableHttp::url(&fixture.url)
        .with_name("dying")
        .with_call_timeout(Duration::from_secs(600));
    server.connect().await.unwrap();
    let handle = server.handle().clone();
    let pending = tokio::spawn(async move { handle.call_tool("hang", json!({})).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    fixture.kill();
    let error = tokio::time::timeout(Duration::from_secs(60), pending)
        .await
        .expect("the pending call must fail long before its 600 s timeout")
        .unwrap()
        .unwrap_err();
    assert!(matches!(error, McpError::ConnectionLost { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains("server 'dying'") && text.contains("tools/call 'hang'"),
        "{text}"
    );
    // Later calls fail at once too.
    let later = server
        .call_tool("echo", json!({"message": "x"}))
        .await
        .unwrap_err();
    assert!(matches!(later, McpError::ConnectionLost { .. }), "{later}");
    server.cleanup().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_http_server_that_dies_mid_call_fails_the_pending_call() {
    pending_call_fails_when_the_server_dies(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sse_server_that_dies_mid_call_fails_the_pending_call() {
    pending_call_fails_when_the_server_dies(&["--protocol", "legacy"]).await;
}
