//! The stdio child's lifecycle: death mid-call, exit during startup, a
//! server that ignores SIGTERM, wrappers that leave grandchildren, drop
//! without cleanup, stderr floods, and the stripped environment.

mod common;

use std::time::Duration;

use serde_json::json;
use toolbridge::mcp::{McpError, McpServer, McpServerStdio};

/// Waits (bounded) until `pid` is gone; returns whether it went.
async fn gone(pid: u32) -> bool {
    for _ in 0..200 {
        if !common::process_alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn stdio_server_that_exits_mid_call_fails_pending_calls_at_once() {
    // A long call timeout: the failure must come from the exit, not a timeout.
    let server = common::fixture(&[]).with_call_timeout(Duration::from_secs(600));
    server.connect().await.unwrap();
    let handle = server.handle().clone();
    let pending: Vec<_> = (0..5)
        .map(|_| {
            let handle = handle.clone();
            tokio::spawn(async move { handle.call_tool("hang", json!({})).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let crash = server
        .call_tool("crash", json!({"code": 7}))
        .await
        .unwrap_err();
    let waited = tokio::time::timeout(Duration::from_secs(20), futures::future::join_all(pending))
        .await
        .expect("pending calls must fail promptly, not at their timeout");
    for error in waited
        .into_iter()
        .map(|r| r.unwrap().unwrap_err())
        .chain([crash])
    {
        let text = error.to_string();
        assert!(matches!(error, McpError::Exited { .. }), "{text}");
        assert!(text.contains("exit code 7"), "{text}");
        assert!(
            text.contains("crashing now with code 7"),
            "stderr tail missing: {text}"
        );
        assert!(text.contains("server 'fixture'"), "{text}");
    }
    // Later calls fail the same way, at once.
    let later = server
        .call_tool("echo", json!({"message": "x"}))
        .await
        .unwrap_err();
    assert!(later.to_string().contains("exit code 7"), "{later}");
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn stdio_server_that_exits_during_startup_fails_connect_with_status_and_stderr() {
    let server =
        common::fixture(&["--exit-at-startup", "3"]).with_startup_timeout(Duration::from_secs(600));
    let error = tokio::time::timeout(Duration::from_secs(20), server.connect())
        .await
        .expect("connect must fail promptly, not at the startup timeout")
        .unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(error, McpError::ExitedDuringStartup { .. }),
        "{text}"
    );
    assert!(text.contains("exit code 3"), "{text}");
    assert!(
        text.contains("fatal: config file /nonexistent/config.json not found"),
        "{text}"
    );
}

#[tokio::test]
async fn a_server_printing_usage_on_stdout_and_exiting_says_what_it_printed() {
    let server =
        McpServerStdio::command("sh", ["-c", "echo 'usage: some-server --root DIR'; exit 2"])
            .with_name("usage");
    let error = server.connect().await.unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(error, McpError::ExitedDuringStartup { .. }),
        "{text}"
    );
    assert!(text.contains("exit code 2"), "{text}");
    assert!(text.contains("usage: some-server --root DIR"), "{text}");
}

#[tokio::test]
async fn a_server_that_closes_its_stdout_is_started_once_and_fails_clearly() {
    let dir = std::env::temp_dir().join(format!("toolbridge-closed-stdout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let starts = dir.join("starts");
    let script = format!("echo start >> '{}'; exec 1>&-; sleep 30", starts.display());
    let server = McpServerStdio::command("sh", ["-c", script.as_str()]).with_name("mute");
    let error = tokio::time::timeout(Duration::from_secs(30), server.connect())
        .await
        .expect("connect fails without waiting for the startup timeout")
        .unwrap_err();
    assert!(matches!(error, McpError::Handshake { .. }), "{error}");
    let count = std::fs::read_to_string(&starts).unwrap().lines().count();
    assert_eq!(
        count, 1,
        "a closed stdout must not be retried with a second start"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_line_over_the_message_limit_disconnects_with_a_clear_error() {
    let server = common::fixture(&[]).with_options(toolbridge::mcp::McpServerOptions {
        max_message_bytes: 1024 * 1024,
        ..Default::default()
    });
    server.connect().await.unwrap();
    let small = server
        .call_tool("big", json!({"bytes": 1000}))
        .await
        .unwrap();
    assert_eq!(small.text_content().len(), 1000);
    let error = server
        .call_tool("big", json!({"bytes": 2 * 1024 * 1024}))
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, McpError::ConnectionLost { .. }), "{text}");
    assert!(text.contains("longer than 1048576 bytes"), "{text}");
    let pid = server.pid().unwrap();
    server.cleanup().await.unwrap();
    assert!(gone(pid).await);
}

#[tokio::test]
async fn missing_command_fails_connect_with_a_spawn_error() {
    let server = McpServerStdio::command("/nonexistent/toolbridge-no-such-server", ["x"]);
    let error = server.connect().await.unwrap_err();
    assert!(matches!(error, McpError::Spawn { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("/nonexistent/toolbridge-no-such-server")
    );
}

#[tokio::test]
async fn server_ignoring_sigterm_and_stdin_eof_is_killed_by_cleanup() {
    let server = common::fixture(&["--quirk", "ignore-sigterm"]);
    server.connect().await.unwrap();
    let pid = server.pid().unwrap();
    tokio::time::timeout(Duration::from_secs(30), server.cleanup())
        .await
        .expect("cleanup is bounded")
        .unwrap();
    assert!(!common::process_alive(pid), "server survived cleanup");
    // Idempotent.
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn wrapper_that_leaves_a_grandchild_leaves_nothing_after_cleanup() {
    let dir = std::env::temp_dir().join(format!("toolbridge-grandchild-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pidfile = dir.join("sleep.pid");
    let script = format!(
        "sleep 300 & echo $! > '{}'; exec '{}'",
        pidfile.display(),
        common::fixture_bin().display()
    );
    let server = McpServerStdio::command("sh", ["-c", script.as_str()]).with_name("wrapped");
    server.connect().await.unwrap();
    let leader = server.pid().unwrap();
    let grandchild: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(common::process_alive(grandchild));
    let echo = server
        .call_tool("echo", json!({"message": "w"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: w");
    server.cleanup().await.unwrap();
    assert!(gone(leader).await, "leader left behind");
    assert!(gone(grandchild).await, "grandchild `sleep` left behind");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn dropping_a_server_without_cleanup_kills_its_process_group() {
    let pid = {
        let server = common::fixture(&[]);
        server.connect().await.unwrap();
        server.pid().unwrap()
    };
    assert!(gone(pid).await, "dropped server still running");
}

#[tokio::test]
async fn a_server_flooding_stderr_does_not_block_and_keeps_a_bounded_tail() {
    // 1 MiB of stderr before serving: far more than a pipe buffer.
    let server = common::fixture(&["--stderr-flood", "1048576"]);
    server
        .connect()
        .await
        .expect("connect despite the stderr flood");
    let echo = server
        .call_tool("echo", json!({"message": "f"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: f");
    let error = server
        .call_tool("crash", json!({"code": 2}))
        .await
        .unwrap_err();
    let tail = error.stderr_tail().unwrap();
    assert!(
        tail.len() <= toolbridge::mcp::STDERR_TAIL_BYTES,
        "tail is {} bytes",
        tail.len()
    );
    assert!(
        tail.contains("stderr flood done"),
        "tail lacks the last flood line"
    );
    assert!(tail.contains("crashing now with code 2"));
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn cleanup_during_a_call_fails_it_at_once_with_server_closed() {
    let server = common::fixture(&[]).with_call_timeout(Duration::from_secs(600));
    server.connect().await.unwrap();
    let handle = server.handle().clone();
    let pending = tokio::spawn(async move { handle.call_tool("hang", json!({})).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.cleanup().await.unwrap();
    let error = tokio::time::timeout(Duration::from_secs(10), pending)
        .await
        .expect("pending call ends")
        .unwrap()
        .unwrap_err();
    assert!(matches!(error, McpError::Closed { .. }), "{error}");
    let after = server
        .call_tool("echo", json!({"message": "x"}))
        .await
        .unwrap_err();
    assert!(after.to_string().contains("is closed"), "{after}");
}

/// Runs `inner` in a child test process whose environment has a canary
/// secret; the real check is the ignored test below.
#[test]
fn parent_secrets_do_not_reach_the_server_unless_configured() {
    let exe = std::env::current_exe().unwrap();
    let output = std::process::Command::new(exe)
        .args([
            "--exact",
            "canary_inner",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CANARY_TOKEN", "canary-secret-4711")
        .env("TOOLBRIDGE_CANARY_CHILD", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "inner test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("1 passed"),
        "inner test did not run:\n{stdout}"
    );
}

#[tokio::test]
#[ignore = "run by parent_secrets_do_not_reach_the_server_unless_configured"]
async fn canary_inner() {
    assert_eq!(
        std::env::var("CANARY_TOKEN").as_deref(),
        Ok("canary-secret-4711")
    );
    let env_of = |server: McpServerStdio| async move {
        server.connect().await.unwrap();
        let result = server.call_tool("env", json!({})).await.unwrap();
        server.cleanup().await.unwrap();
        serde_json::from_str::<serde_json::Value>(&result.text_content()).unwrap()
    };
    let stripped = env_of(common::fixture(&[])).await;
    assert!(
        stripped.get("CANARY_TOKEN").is_none(),
        "secret leaked: {stripped}"
    );
    assert!(stripped.get("PATH").is_some(), "PATH must be passed");

    let given = env_of(common::fixture(&[]).with_env("CANARY_TOKEN", "configured")).await;
    assert_eq!(given["CANARY_TOKEN"], "configured");

    let inherited = env_of(common::fixture(&[]).with_inherited_env("CANARY_TOKEN")).await;
    assert_eq!(inherited["CANARY_TOKEN"], "canary-secret-4711");
}

#[tokio::test]
async fn configured_secrets_printed_on_stdout_are_hidden_in_errors() {
    let server = McpServerStdio::command("sh", ["-c", "echo \"my token $MY_TOKEN\"; exit 4"])
        .with_env("MY_TOKEN", "sk-live-SUPERSECRET-0001")
        .with_name("leaky");
    let error = server.connect().await.unwrap_err().to_string();
    assert!(error.contains("my token ****"), "{error}");
    assert!(!error.contains("SUPERSECRET"), "{error}");
}
