//! A Streamable HTTP server that dies mid-call: pending calls fail promptly
//! with a connection error (not at their timeout), in both eras.

mod common;

use std::{
    io::{BufRead, BufReader},
    process::{Command, Stdio},
    time::Duration,
};

use serde_json::json;
use toolbridge::mcp::{McpError, McpServer, McpServerStreamableHttp};

async fn pending_call_fails_when_the_server_dies(args: &[&str]) {
    let mut child = Command::new(common::fixture_bin())
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned();
    let server = McpServerStreamableHttp::url(&url)
        .with_name("dying")
        .with_call_timeout(Duration::from_secs(600));
    server.connect().await.unwrap();
    let handle = server.handle().clone();
    let pending = tokio::spawn(async move { handle.call_tool("hang", json!({})).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    child.kill().unwrap();
    child.wait().unwrap();
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
