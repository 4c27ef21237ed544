//! The hub over real fixture processes: namespacing and routing, restarts
//! after a crash, refresh on `tools/list_changed`, disconnect, the command
//! policy, and loading servers from a config file.

mod common;

use std::{collections::HashSet, time::Duration};

use common::HttpFixture;
use serde_json::json;
use toolbridge::{
    config::{HubConfig, RestartPolicy, ServerConfig, TransportConfig},
    hub::{Hub, HubError, HubEvent, ServerState},
    mcp::McpServerStdioParams,
    policy::{CommandPolicy, Trust},
};

/// A stdio fixture server config (legacy era, so `tools/list_changed`
/// arrives as a plain notification).
fn stdio(name: &str, extra: &[&str]) -> ServerConfig {
    let mut args = vec!["--protocol".to_owned(), "legacy".to_owned()];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    let mut config = ServerConfig::new(
        name,
        TransportConfig::Stdio(McpServerStdioParams {
            command: common::fixture_bin().to_string_lossy().into_owned(),
            args,
            ..Default::default()
        }),
    );
    config.restart = RestartPolicy {
        base: Duration::from_millis(100),
        cap: Duration::from_secs(1),
        max_attempts: 5,
    };
    config
}

fn http(name: &str, url: &str) -> ServerConfig {
    ServerConfig::new(
        name,
        TransportConfig::Http {
            url: url.to_owned(),
            headers: Default::default(),
        },
    )
}

/// Waits (bounded) until the hub reports `tool` on `server`.
async fn wait_for_tool(hub: &Hub, server: &str, tool: &str) {
    for _ in 0..200 {
        if hub
            .list_tools()
            .iter()
            .any(|t| t.server == server && t.tool == tool)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "tool {tool} never appeared on {server}: {:?}",
        hub.list_tools()
    );
}

fn exposed(hub: &Hub, server: &str, tool: &str) -> String {
    hub.list_tools()
        .into_iter()
        .find(|t| t.server == server && t.tool == tool)
        .unwrap_or_else(|| panic!("{server}/{tool} not listed"))
        .exposed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_servers_share_one_namespace_with_collisions_and_long_names_resolved() {
    let web = HttpFixture::start(&["--protocol", "legacy"]);
    let hub = Hub::new();
    hub.connect_with_trust(stdio("a_b", &[]), Trust::Local)
        .await
        .unwrap();
    hub.connect_with_trust(stdio("a", &[]), Trust::Local)
        .await
        .unwrap();
    hub.connect_with_trust(http("web", &web.url), Trust::Local)
        .await
        .unwrap();

    // `a_b` + `c` and `a` + `b_c` both read `mcp_a_b_c`.
    hub.call_tool("a_b", "add_tool", json!({"name": "c"}))
        .await
        .unwrap();
    hub.call_tool("a", "add_tool", json!({"name": "b_c"}))
        .await
        .unwrap();
    let long = "t".repeat(100);
    hub.call_tool("a", "add_tool", json!({"name": long}))
        .await
        .unwrap();
    wait_for_tool(&hub, "a_b", "c").await;
    wait_for_tool(&hub, "a", "b_c").await;
    wait_for_tool(&hub, "a", &long).await;

    let tools = hub.list_tools();
    let names: HashSet<_> = tools.iter().map(|t| t.exposed.clone()).collect();
    assert_eq!(names.len(), tools.len(), "exposed names must be unique");
    for tool in &tools {
        assert!(tool.exposed.len() <= 64, "{} is too long", tool.exposed);
        assert!(
            tool.exposed
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{} has a character LLM APIs refuse",
            tool.exposed
        );
        assert_eq!(tool.spec.name, tool.exposed);
        assert!(tool.spec.parameters.is_object());
    }
    let collided = (exposed(&hub, "a_b", "c"), exposed(&hub, "a", "b_c"));
    assert_ne!(collided.0, collided.1);
    assert!(
        !names.contains("mcp_a_b_c"),
        "a colliding bare name must not route anywhere"
    );
    let long_exposed = exposed(&hub, "a", &long);
    assert!(long_exposed.starts_with("mcp_a_tttt"), "{long_exposed}");

    // Routing goes by the table: each exposed name reaches its own server.
    let pid = |s: &str| {
        let hub = hub.clone();
        let exposed = exposed(&hub, s, "pid");
        async move { hub.call(&exposed, json!({})).await.unwrap().text_content() }
    };
    assert_ne!(pid("a").await, pid("a_b").await);
    let echo = hub
        .call(&collided.0, json!({"message": "to a_b"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: to a_b");
    let echo = hub
        .call(&long_exposed, json!({"message": "long"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: long");
    let web_echo = hub
        .call("mcp_web_echo", json!({"message": "over http"}))
        .await
        .unwrap();
    assert_eq!(web_echo.text_content(), "Echo: over http");

    // The same tool name on three servers stays callable on each.
    assert!(
        names.contains("mcp_a_echo")
            && names.contains("mcp_a_b_echo")
            && names.contains("mcp_web_echo")
    );

    // The hub's tools as a registry beside native tools.
    let registry = hub.registry();
    let reply = registry
        .call("mcp_a_echo", json!({"message": "reg"}))
        .await
        .unwrap();
    assert_eq!(reply.text_content(), "Echo: reg");
    hub.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_server_fails_its_pending_call_restarts_once_and_serves_again() {
    let hub = Hub::new();
    let mut config = stdio("crashy", &[]);
    config.call_timeout = Some(Duration::from_secs(60));
    hub.connect_with_trust(config, Trust::Local).await.unwrap();
    let before: u32 = hub
        .call_tool("crashy", "pid", json!({}))
        .await
        .unwrap()
        .text_content()
        .parse()
        .unwrap();

    let pending = {
        let hub = hub.clone();
        tokio::spawn(async move { hub.call_tool("crashy", "hang", json!({})).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(before as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let failed = tokio::time::timeout(Duration::from_secs(20), pending)
        .await
        .expect("the pending call fails at once, not at its 60 s timeout")
        .unwrap()
        .unwrap_err();
    assert!(
        failed.to_string().contains("killed by signal 9"),
        "{failed}"
    );

    // Ten calls while it restarts: they wait, and only one new process starts.
    let calls = (0..10).map(|_| {
        let hub = hub.clone();
        async move { hub.call_tool("crashy", "pid", json!({})).await }
    });
    let pids: HashSet<String> = futures::future::join_all(calls)
        .await
        .into_iter()
        .map(|r| r.expect("calls during the restart succeed").text_content())
        .collect();
    assert_eq!(pids.len(), 1, "one new child, not several: {pids:?}");
    assert_ne!(pids.into_iter().next().unwrap(), before.to_string());

    let info = &hub.list_connections()[0];
    assert_eq!(info.state, ServerState::Ready);
    assert_eq!(info.restarts, 1);
    assert!(
        info.last_error
            .as_deref()
            .unwrap_or("")
            .contains("killed by signal 9")
    );
    hub.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restarts_exhausted_leave_the_server_failed_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("toolbridge-hub-fail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("started-once");
    // Starts fine the first time; every later start exits at once.
    let script = format!(
        "if [ -e '{m}' ]; then echo 'fatal: cannot start twice' >&2; exit 4; fi; touch '{m}'; exec '{f}' --protocol legacy",
        m = marker.display(),
        f = common::fixture_bin().display()
    );
    let mut config = ServerConfig::new(
        "once",
        TransportConfig::Stdio(McpServerStdioParams {
            command: "sh".into(),
            args: vec!["-c".into(), script],
            ..Default::default()
        }),
    );
    config.restart = RestartPolicy {
        base: Duration::from_millis(50),
        cap: Duration::from_millis(100),
        max_attempts: 2,
    };
    let hub = Hub::new();
    let mut events = hub.subscribe();
    hub.connect_with_trust(config, Trust::Local).await.unwrap();
    let _ = hub.call_tool("once", "crash", json!({"code": 3})).await;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("the hub gives up within its restart policy")
            .unwrap();
        if matches!(&event, HubEvent::Disconnected { reason, .. } if *reason == toolbridge::hub::DisconnectReason::Error)
        {
            break;
        }
    }
    let info = &hub.list_connections()[0];
    assert_eq!(info.state, ServerState::Failed);
    assert!(
        info.last_error
            .as_deref()
            .unwrap_or("")
            .contains("cannot start twice"),
        "{info:?}"
    );
    let error = hub
        .call_tool("once", "echo", json!({"message": "x"}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("is failed"), "{error}");
    hub.close().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_shows_new_tools_and_keeps_blocked_ones_hidden() {
    let hub = Hub::new();
    let mut config = stdio("grow", &[]);
    config.block_tools = Some(vec!["secret_tool".into()]);
    hub.connect_with_trust(config, Trust::Local).await.unwrap();
    hub.call_tool("grow", "add_tool", json!({"name": "secret_tool"}))
        .await
        .unwrap();
    hub.call_tool("grow", "add_tool", json!({"name": "new_tool"}))
        .await
        .unwrap();
    wait_for_tool(&hub, "grow", "new_tool").await;
    assert!(!hub.list_tools().iter().any(|t| t.tool == "secret_tool"));
    let error = hub
        .call_tool("grow", "secret_tool", json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, HubError::ToolNotFound { .. }), "{error}");
    hub.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disconnect_fails_pending_calls_at_once_and_errors_name_what_exists() {
    let hub = Hub::new();
    let mut config = stdio("gone", &[]);
    config.call_timeout = Some(Duration::from_secs(60));
    hub.connect_with_trust(config, Trust::Local).await.unwrap();
    hub.connect_with_trust(stdio("stays", &[]), Trust::Local)
        .await
        .unwrap();
    let pending = {
        let hub = hub.clone();
        tokio::spawn(async move { hub.call_tool("gone", "hang", json!({})).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    hub.disconnect("gone").await.unwrap();
    let error = tokio::time::timeout(Duration::from_secs(10), pending)
        .await
        .expect("fails at once")
        .unwrap()
        .unwrap_err();
    assert!(error.to_string().contains("connection closed"), "{error}");

    let missing = hub.call_tool("gone", "echo", json!({})).await.unwrap_err();
    assert_eq!(
        missing.to_string(),
        "no server named 'gone' (connected: stays)"
    );
    let unknown = hub.call_tool("stays", "nope", json!({})).await.unwrap_err();
    let text = unknown.to_string();
    assert!(
        text.starts_with("tool 'nope' not found on server 'stays' (it has: "),
        "{text}"
    );
    assert!(text.contains("echo"), "{text}");
    let duplicate = hub
        .connect_with_trust(stdio("stays", &[]), Trust::Local)
        .await
        .unwrap_err();
    assert!(
        matches!(duplicate, HubError::Duplicate { .. }),
        "{duplicate}"
    );
    hub.close().await;
}

#[tokio::test]
async fn commands_with_shell_metacharacters_are_refused_and_nothing_is_spawned() {
    let dir = std::env::temp_dir().join(format!("toolbridge-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("spawned");
    let hub = Hub::new();
    for bad in [";", "|", "$(", "`", "\n"] {
        let config = ServerConfig::new(
            "evil",
            TransportConfig::Stdio(McpServerStdioParams {
                command: "npx".into(),
                args: vec![format!("x{bad}touch {}", marker.display())],
                ..Default::default()
            }),
        );
        let error = hub.connect(config).await.unwrap_err();
        assert!(matches!(error, HubError::Policy(_)), "{bad:?}: {error}");
    }
    // A launcher outside the allowlist is refused too, with a hint…
    let error = hub.connect(stdio("fixture", &[])).await.unwrap_err();
    assert!(error.to_string().contains("command_allowlist"), "{error}");
    assert!(!marker.exists(), "nothing may be spawned");
    assert!(hub.list_connections().is_empty());
    // …until the policy allows it.
    hub.set_command_policy(
        CommandPolicy::default().widen([common::fixture_bin().to_string_lossy().into_owned()]),
    );
    hub.connect(stdio("fixture", &[])).await.unwrap();
    hub.close().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_all_from_a_config_file_reports_each_failure_and_keeps_the_rest() {
    let dir = std::env::temp_dir().join(format!("toolbridge-hub-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("toolbridge.toml");
    let fixture = common::fixture_bin();
    std::fs::write(
        &path,
        format!(
            r#"
[servers.one]
command = "{f}"
args = ["--protocol", "legacy"]

[servers.two]
command = "{f}"
prefix = "two"

[servers.broken]
command = "/nonexistent/toolbridge-server"
"#,
            f = fixture.display()
        ),
    )
    .unwrap();
    let config = HubConfig::load(&path).unwrap();
    let hub = Hub::new();
    let outcomes = hub.connect_all(&config).await;
    let names: Vec<_> = outcomes.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["one", "two", "broken"]);
    assert!(outcomes[0].1.is_ok() && outcomes[1].1.is_ok());
    let broken = outcomes[2].1.as_ref().unwrap_err().to_string();
    assert!(
        broken.contains("server 'broken'") && broken.contains("/nonexistent/toolbridge-server"),
        "{broken}"
    );
    let connections = hub.list_connections();
    assert_eq!(connections.len(), 2);
    assert!(
        connections
            .iter()
            .all(|c| c.state == ServerState::Ready && c.tool_count > 0)
    );
    // The prefixed server uses {prefix}__{tool}; the other mcp_{server}_{tool}.
    let echo = hub
        .call("two__echo", json!({"message": "p"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: p");
    assert!(
        hub.call("mcp_one_echo", json!({"message": "n"}))
            .await
            .is_ok()
    );
    hub.close().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connects_calls_and_disconnects_are_audited_without_argument_values() {
    use toolbridge::audit::{AuditEventKind, AuditLog, AuditQuery, CallOutcome, DisconnectReason};
    use toolbridge::config::AuditConfig;

    let dir = std::env::temp_dir().join(format!("toolbridge-hub-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("audit.jsonl");
    let log = AuditLog::open(&AuditConfig::Jsonl { path: path.clone() }).unwrap();
    let hub = Hub::new();
    hub.record_audit(log.clone());
    hub.connect_with_trust(stdio("audited", &[]), Trust::Local)
        .await
        .unwrap();
    let secret = "canary-value-do-not-log-7731";
    hub.call_tool("audited", "echo", json!({"message": secret}))
        .await
        .unwrap();
    hub.call_tool("audited", "fail", json!({})).await.unwrap();
    hub.disconnect("audited").await.unwrap();

    let mut events = Vec::new();
    for _ in 0..100 {
        log.flush(Duration::from_secs(5)).unwrap();
        events = toolbridge::audit::query_jsonl(&path, &AuditQuery::default()).unwrap();
        if events
            .iter()
            .any(|e| matches!(e.kind, AuditEventKind::McpDisconnect { .. }))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let kinds: Vec<_> = events.iter().map(|e| e.kind_name()).collect();
    assert_eq!(
        kinds,
        [
            "mcp_connect",
            "mcp_tool_call",
            "mcp_tool_call",
            "mcp_disconnect"
        ],
        "{events:?}"
    );
    match &events[1].kind {
        AuditEventKind::McpToolCall {
            tool,
            outcome,
            argument_names,
            ..
        } => {
            assert_eq!(tool, "echo");
            assert_eq!(*outcome, CallOutcome::Ok);
            assert_eq!(argument_names, &["message"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        &events[2].kind,
        AuditEventKind::McpToolCall {
            outcome: CallOutcome::ToolError,
            ..
        }
    ));
    assert!(matches!(
        &events[3].kind,
        AuditEventKind::McpDisconnect {
            reason: DisconnectReason::Requested,
            ..
        }
    ));
    let stored = std::fs::read_to_string(&path).unwrap();
    assert!(
        !stored.contains(secret),
        "argument values must not be logged"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_beyond_the_per_server_cap_wait_and_then_fail_clearly() {
    let hub = Hub::new();
    let mut config = stdio("capped", &[]);
    config.max_concurrent_calls = Some(1);
    hub.connect_with_trust(config, Trust::Local).await.unwrap();
    let hanging = {
        let hub = hub.clone();
        tokio::spawn(async move {
            hub.call_tool_with_timeout("capped", "hang", json!({}), Duration::from_secs(2))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let blocked = hub
        .call_tool_with_timeout(
            "capped",
            "echo",
            json!({"message": "x"}),
            Duration::from_millis(300),
        )
        .await
        .unwrap_err();
    assert!(
        blocked.to_string().contains("max_concurrent_calls = 1"),
        "{blocked}"
    );
    // Once the hanging call gives up (its 2 s timeout), the slot is free again.
    let _ = hanging.await.unwrap();
    let echo = hub
        .call_tool("capped", "echo", json!({"message": "y"}))
        .await
        .unwrap();
    assert_eq!(echo.text_content(), "Echo: y");
    hub.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_era_server_reports_list_changes_through_its_subscription() {
    let hub = Hub::new();
    let mut config = stdio("modern", &[]);
    if let TransportConfig::Stdio(params) = &mut config.transport {
        params.args.clear();
    }
    hub.connect_with_trust(config, Trust::Local).await.unwrap();
    hub.call_tool("modern", "add_tool", json!({"name": "fresh_tool"}))
        .await
        .unwrap();
    wait_for_tool(&hub, "modern", "fresh_tool").await;
    hub.close().await;
}

/// Runs the ignored test below in a child test process whose environment
/// holds a canary secret.
#[test]
fn parent_secrets_never_reach_hub_servers_logs_errors_or_the_audit_log() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "hub_canary_inner",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CANARY_TOKEN", "parent-canary-4242")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "inner test failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("1 passed"),
        "inner test did not run:\n{stdout}"
    );
    assert!(
        !stdout.contains("configured-secret-9876") && !stderr.contains("configured-secret-9876")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by parent_secrets_never_reach_hub_servers_logs_errors_or_the_audit_log"]
async fn hub_canary_inner() {
    use toolbridge::{audit::AuditLog, config::AuditConfig};
    assert_eq!(
        std::env::var("CANARY_TOKEN").as_deref(),
        Ok("parent-canary-4242")
    );
    let dir = std::env::temp_dir().join(format!("toolbridge-hub-canary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let audit_path = dir.join("audit.jsonl");
    let log = AuditLog::open(&AuditConfig::Jsonl {
        path: audit_path.clone(),
    })
    .unwrap();
    let hub = Hub::new();
    hub.record_audit(log.clone());

    // A server that prints its configured secret on stderr, then serves.
    let script = format!(
        "echo \"my token is $API_TOKEN\" >&2; exec '{}' --protocol legacy",
        common::fixture_bin().display()
    );
    let mut config = ServerConfig::new(
        "leaky",
        TransportConfig::Stdio(McpServerStdioParams {
            command: "sh".into(),
            args: vec!["-c".into(), script],
            env: [("API_TOKEN".to_owned(), "configured-secret-9876".to_owned())].into(),
            ..Default::default()
        }),
    );
    config.restart.max_attempts = 0;
    hub.connect_with_trust(config, Trust::Local).await.unwrap();

    let env = hub
        .call_tool("leaky", "env", json!({}))
        .await
        .unwrap()
        .text_content();
    let env: serde_json::Value = serde_json::from_str(&env).unwrap();
    assert!(
        env.get("CANARY_TOKEN").is_none(),
        "parent secret leaked to the server"
    );
    assert_eq!(
        env["API_TOKEN"], "configured-secret-9876",
        "configured values do reach it"
    );

    let crash = hub
        .call_tool("leaky", "crash", json!({"code": 5}))
        .await
        .unwrap_err();
    let crash = crash.to_string();
    assert!(crash.contains("my token is ****"), "{crash}");
    for _ in 0..100 {
        if hub.list_connections()[0].state == ServerState::Failed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let listed = format!("{:?}", hub.list_connections());
    hub.close().await;
    log.flush(Duration::from_secs(5)).unwrap();
    let audit = std::fs::read_to_string(&audit_path).unwrap();
    for text in [&crash, &listed, &audit] {
        assert!(
            !text.contains("configured-secret-9876"),
            "secret in output: {text}"
        );
        assert!(
            !text.contains("parent-canary-4242"),
            "parent secret in output: {text}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
