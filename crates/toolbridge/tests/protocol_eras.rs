//! Both MCP eras over both transports: the 2026-07-28 stateless era with
//! `server/discover`, and the 2024-11-05 … 2025-11-25 `initialize` era,
//! including a legacy server that answers the discovery probe oddly.

mod common;

use std::time::Duration;

use common::HttpFixture;
use serde_json::json;
use toolbridge::mcp::{McpError, McpServer, McpServerStreamableHttp};

async fn negotiated(args: &[&str]) -> String {
    let server = common::fixture(args);
    server.connect().await.expect("connect");
    let version = server.handle().protocol_version().expect("a version");
    let echo = server
        .call_tool("echo", json!({"message": "v"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: v");
    server.cleanup().await.unwrap();
    version
}

#[tokio::test]
async fn a_modern_stdio_server_is_spoken_to_in_the_2026_era() {
    assert_eq!(negotiated(&[]).await, "2026-07-28");
}

#[tokio::test]
async fn a_legacy_stdio_server_falls_back_to_initialize() {
    assert_eq!(negotiated(&["--protocol", "legacy"]).await, "2025-06-18");
}

#[tokio::test]
async fn a_legacy_stdio_server_with_an_odd_discovery_answer_falls_back_to_initialize() {
    assert_eq!(
        negotiated(&["--protocol", "legacy-odd"]).await,
        "2025-06-18"
    );
}

#[tokio::test]
async fn a_legacy_stdio_server_that_ignores_discovery_falls_back_to_initialize() {
    // The probe goes unanswered; the transport refuses it after 3 s instead
    // of rmcp's 10 s, and drops nothing the server sends later.
    assert_eq!(
        negotiated(&["--protocol", "legacy-silent"]).await,
        "2025-06-18"
    );
}

async fn negotiated_http(args: &[&str]) -> String {
    let fixture = HttpFixture::start(args);
    let server = McpServerStreamableHttp::url(&fixture.url)
        .with_header("Authorization", "Bearer not-checked")
        .with_header("Accept", "text/plain")
        .with_name("http-fixture");
    server.connect().await.expect("connect over HTTP");
    let version = server.handle().protocol_version().expect("a version");
    let names: Vec<_> = server
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(names.contains(&"echo".to_owned()));
    let echo = server
        .call_tool("echo", json!({"message": "h"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: h");
    server.cleanup().await.unwrap();
    version
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_http_server_is_spoken_to_in_the_2026_era() {
    assert_eq!(negotiated_http(&[]).await, "2026-07-28");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_http_server_falls_back_to_initialize() {
    assert_eq!(
        negotiated_http(&["--protocol", "legacy"]).await,
        "2025-06-18"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_http_server_refusing_discovery_with_400_falls_back_to_initialize() {
    assert_eq!(
        negotiated_http(&["--protocol", "legacy-odd"]).await,
        "2025-06-18"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_calls_time_out_and_concurrent_calls_get_their_own_results() {
    let fixture = HttpFixture::start(&[]);
    let server = McpServerStreamableHttp::url(&fixture.url).with_name("h");
    server.connect().await.unwrap();
    let error = server
        .call_tool_with_timeout("hang", json!({}), Duration::from_millis(500))
        .await
        .unwrap_err();
    assert!(matches!(error, McpError::Timeout { .. }), "{error}");
    let handle = server.handle().clone();
    let calls = (0..10u64).map(|i| {
        let handle = handle.clone();
        async move {
            let r = handle
                .call_tool(
                    "sleep_echo",
                    json!({"message": i.to_string(), "ms": (10 - i) * 20}),
                )
                .await
                .unwrap();
            assert_eq!(r.text_content(), format!("Echo: {i}"));
        }
    });
    futures::future::join_all(calls).await;
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn an_unreachable_url_fails_connect_with_the_server_name() {
    // Bind and drop to get a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = McpServerStreamableHttp::url(format!("http://127.0.0.1:{port}/mcp"))
        .with_name("nowhere")
        .with_startup_timeout(Duration::from_secs(20));
    let error = server.connect().await.unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, McpError::Unreachable { .. }), "{text}");
    assert!(text.contains("server 'nowhere'"), "{text}");
    assert!(text.to_lowercase().contains("connection refused"), "{text}");
    assert!(
        !text.contains("rmcp::"),
        "no Rust type names in messages: {text}"
    );
}

#[tokio::test]
async fn a_bad_url_or_header_is_a_config_error() {
    let error = McpServerStreamableHttp::url("ftp://x/mcp")
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(error, McpError::InvalidConfig { .. }), "{error}");
    let error = McpServerStreamableHttp::url("http://127.0.0.1:1/mcp")
        .with_header("Bad Header", "x")
        .connect()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("invalid header name"), "{error}");
}

#[tokio::test]
async fn url_query_and_header_secrets_are_hidden_in_connect_errors() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let error = McpServerStreamableHttp::url(format!(
        "http://127.0.0.1:{port}/mcp?api_key=sk-urlsecret-555"
    ))
    .with_header("Authorization", "Bearer sk-headersecret-777")
    .with_name("secretive")
    .connect()
    .await
    .unwrap_err()
    .to_string();
    assert!(error.contains("server 'secretive'"), "{error}");
    assert!(!error.contains("sk-urlsecret-555"), "{error}");
    assert!(!error.contains("sk-headersecret-777"), "{error}");
}
