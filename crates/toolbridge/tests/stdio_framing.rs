//! Real-world stdio output quirks: banners and log lines on stdout, CRLF
//! line ends, very long lines, notifications before the initialize response.

mod common;

use serde_json::json;
use toolbridge::mcp::McpServer;

async fn echo_works(args: &[&str]) {
    let server = common::fixture(args);
    server.connect().await.expect("connect");
    let tools = server.list_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "echo"));
    for i in 0..12 {
        // More than five messages, so the banner mode's periodic log lines
        // land between responses too.
        let result = server
            .call_tool("echo", json!({"message": format!("hi {i}")}))
            .await
            .expect("tools/call");
        assert_eq!(result.text_content(), format!("Echo: hi {i}"));
    }
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn banner_and_log_lines_on_stdout_are_skipped() {
    echo_works(&["--quirk", "banner"]).await;
}

#[tokio::test]
async fn banner_lines_are_skipped_with_a_legacy_server_too() {
    echo_works(&["--quirk", "banner", "--protocol", "legacy"]).await;
}

#[tokio::test]
async fn crlf_line_endings_are_accepted() {
    echo_works(&["--quirk", "crlf"]).await;
}

#[tokio::test]
async fn all_stdout_quirks_at_once_are_accepted() {
    echo_works(&[
        "--quirk",
        "banner",
        "--quirk",
        "crlf",
        "--quirk",
        "notify-before-init",
    ])
    .await;
}

#[tokio::test]
async fn notification_before_initialize_response_does_not_break_the_handshake() {
    echo_works(&["--quirk", "notify-before-init"]).await;
    echo_works(&["--quirk", "notify-before-init", "--protocol", "legacy"]).await;
}

#[tokio::test]
async fn a_response_line_of_9_mib_is_delivered_intact() {
    let server = common::fixture(&["--quirk", "crlf"]);
    server.connect().await.unwrap();
    let bytes = 9 * 1024 * 1024 + 7;
    let result = server
        .call_tool("big", json!({"bytes": bytes}))
        .await
        .expect("big result");
    let text = result.text_content();
    assert_eq!(text.len(), bytes);
    let expected: String = (0..bytes)
        .map(|i| (b'a' + (i % 26) as u8) as char)
        .collect();
    assert!(
        text == expected,
        "content differs from the deterministic pattern"
    );
    // The connection still works after the big line.
    let echo = server
        .call_tool("echo", json!({"message": "after"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: after");
    server.cleanup().await.unwrap();
}
