//! Calls: timeouts with cancellation, concurrency with out-of-order answers,
//! tool errors versus JSON-RPC errors, server-to-client requests mid-call,
//! content kinds.

mod common;

use std::time::Duration;

use serde_json::{Value, json};
use toolbridge::{
    Content,
    mcp::{McpError, McpServer},
};

/// The request ids the fixture saw `notifications/cancelled` for, waiting
/// (bounded) until there is at least one.
async fn cancelled_requests(server: &impl McpServer) -> Vec<Value> {
    let mut cancelled = Vec::new();
    for _ in 0..100 {
        let seen = server
            .call_tool("cancelled_requests", json!({}))
            .await
            .unwrap();
        cancelled = serde_json::from_str::<Vec<Value>>(&seen.text_content()).unwrap();
        if !cancelled.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    cancelled
}

#[tokio::test]
async fn a_call_that_is_never_answered_times_out_and_is_cancelled() {
    let server = common::fixture(&[]);
    server.connect().await.unwrap();
    let error = server
        .call_tool_with_timeout("hang", json!({}), Duration::from_millis(800))
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, McpError::Timeout { .. }), "{text}");
    assert!(
        text.contains("server 'fixture'") && text.contains("'hang'") && text.contains("0.8 s"),
        "{text}"
    );
    // The server saw notifications/cancelled for that request.
    let cancelled = cancelled_requests(&server).await;
    assert_eq!(
        cancelled.len(),
        1,
        "expected one cancelled request id, got {cancelled:?}"
    );
    // The connection is still usable.
    let echo = server
        .call_tool("echo", json!({"message": "ok"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: ok");
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn a_call_abandoned_by_its_caller_is_cancelled_on_the_server() {
    let server = common::fixture(&[]).with_call_timeout(Duration::from_secs(600));
    server.connect().await.unwrap();
    // The caller stops waiting (drops the call future) long before the
    // call timeout.
    let abandoned = tokio::time::timeout(
        Duration::from_millis(300),
        server.call_tool("hang", json!({})),
    )
    .await;
    assert!(abandoned.is_err(), "hang must not answer");
    let cancelled = cancelled_requests(&server).await;
    assert_eq!(
        cancelled.len(),
        1,
        "expected one cancelled request, got {cancelled:?}"
    );
    server.cleanup().await.unwrap();
}

/// A regression guard for the hand-over of stdout between a waiting caller
/// and rmcp's reader: thousands of back-to-back calls, one at a time and 64
/// at a time, all complete (a lost hand-over shows as a timeout here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_sequential_and_concurrent_calls_all_complete() {
    for protocol in ["auto", "legacy"] {
        let server =
            common::fixture(&["--protocol", protocol]).with_call_timeout(Duration::from_secs(20));
        server.connect().await.unwrap();
        let handle = server.handle().clone();
        for i in 0..2000 {
            let result = handle
                .call_tool("echo", json!({"message": i.to_string()}))
                .await
                .unwrap_or_else(|e| panic!("{protocol} sequential call {i}: {e}"));
            assert_eq!(result.text_content(), format!("Echo: {i}"));
        }
        let tasks = (0..64).map(|task| {
            let handle = handle.clone();
            tokio::spawn(async move {
                for i in 0..50 {
                    let message = format!("{task}-{i}");
                    let result = handle
                        .call_tool("echo", json!({"message": message}))
                        .await
                        .unwrap_or_else(|e| panic!("task {task} call {i}: {e}"));
                    assert_eq!(result.text_content(), format!("Echo: {message}"));
                }
            })
        });
        for task in futures::future::join_all(tasks).await {
            task.unwrap();
        }
        server.cleanup().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_concurrent_calls_answered_in_reverse_order_each_get_their_own_result() {
    let server = common::fixture(&[]);
    server.connect().await.unwrap();
    let handle = server.handle().clone();
    let calls = (0..20u64).map(|i| {
        let handle = handle.clone();
        // Later calls sleep less, so answers come back reversed, with jitter.
        let ms = (20 - i) * 25 + (i * 7919 % 13);
        async move {
            let result = handle
                .call_tool(
                    "sleep_echo",
                    json!({"message": format!("call-{i}"), "ms": ms}),
                )
                .await
                .unwrap();
            (i, result.text_content())
        }
    });
    for (i, text) in futures::future::join_all(calls).await {
        assert_eq!(text, format!("Echo: call-{i}"));
    }
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn is_error_result_is_ok_and_json_rpc_error_is_err() {
    let server = common::fixture(&[]);
    server.connect().await.unwrap();
    let failed = server
        .call_tool("fail", json!({}))
        .await
        .expect("isError is a result");
    assert!(failed.is_error);
    assert_eq!(failed.text_content(), "something went wrong");

    let rpc = server.call_tool("invalid", json!({})).await.unwrap_err();
    match &rpc {
        McpError::Rpc {
            code,
            message,
            phase,
            ..
        } => {
            assert_eq!(*code, -32602);
            assert!(message.contains("always rejects"), "{message}");
            assert_eq!(phase, "tools/call 'invalid'");
        }
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
    let unknown = server
        .call_tool("no_such_tool", json!({}))
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, McpError::Rpc { code: -32602, .. }),
        "{unknown}"
    );
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn server_requests_mid_call_get_ping_answered_and_roots_refused() {
    // Server-to-client requests exist only in the initialize era.
    let server = common::fixture(&["--protocol", "legacy"]);
    server.connect().await.unwrap();
    let result = tokio::time::timeout(
        Duration::from_secs(20),
        server.call_tool("ask_client", json!({})),
    )
    .await
    .expect("the call completes")
    .unwrap();
    assert_eq!(result.text_content(), "ping: ok; roots/list: error -32601");
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn all_content_kinds_survive_conversion_in_order() {
    let server = common::fixture(&[]);
    server.connect().await.unwrap();
    let result = server.call_tool("mixed", json!({})).await.unwrap();
    assert_eq!(result.content.len(), 4, "{:?}", result.content);
    assert_eq!(result.content[0], Content::text("first"));
    match &result.content[1] {
        Content::Image { data, mime_type } => {
            assert_eq!(mime_type, "image/png");
            assert!(
                data.starts_with("iVBORw0KGgo"),
                "base64 PNG expected: {data}"
            );
        }
        other => panic!("expected an image, got {other:?}"),
    }
    match &result.content[2] {
        Content::Resource { resource } => {
            assert_eq!(resource.uri, "file:///fixture/readme.txt");
            assert_eq!(resource.text.as_deref(), Some("hello resource"));
        }
        other => panic!("expected an embedded resource, got {other:?}"),
    }
    match &result.content[3] {
        Content::ResourceLink { uri, name, .. } => {
            assert_eq!(uri, "file:///fixture/link.txt");
            assert_eq!(name, "link.txt");
        }
        other => panic!("expected a resource link, got {other:?}"),
    }
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn structured_content_is_kept() {
    let server = common::fixture(&[]);
    server.connect().await.unwrap();
    let result = server
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(result.text_content(), "5");
    assert_eq!(result.structured_content, Some(json!({"sum": 5})));
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn calling_before_connect_says_so() {
    let server = common::fixture(&[]);
    let error = server.call_tool("echo", json!({})).await.unwrap_err();
    assert!(matches!(error, McpError::NotConnected { .. }), "{error}");
}
