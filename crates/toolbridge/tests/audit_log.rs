//! The audit log against real files: SQLite and JSON lines sinks, queries,
//! overflow accounting, and that argument values never reach the disk.

use std::{
    path::{Path, PathBuf},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use serde_json::json;
use toolbridge::audit::{
    self, AuditEvent, AuditEventKind, AuditLog, AuditQuery, CallOutcome, DisconnectReason,
    Timestamp,
};
use toolbridge::config::AuditConfig;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const WAIT: Duration = Duration::from_secs(30);

struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let dir = std::env::temp_dir().join(format!(
            "toolbridge-audit-{label}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        Self(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn sqlite(path: &Path) -> AuditConfig {
    AuditConfig::Sqlite {
        path: Some(path.to_owned()),
    }
}

fn jsonl(path: &Path) -> AuditConfig {
    AuditConfig::Jsonl {
        path: path.to_owned(),
    }
}

/// One event of each kind: two servers, two tools.
fn one_of_each() -> Vec<AuditEvent> {
    vec![
        AuditEvent::connect("git", "stdio", 12),
        AuditEvent::connect("fs", "http", 3),
        AuditEvent::tool_call(
            "git",
            "status",
            Duration::from_millis(41),
            CallOutcome::Ok,
            &json!({"repo_path": "/src"}),
            None,
        ),
        AuditEvent::tool_call(
            "fs",
            "read_file",
            Duration::from_millis(7),
            CallOutcome::ToolError,
            &json!({"path": "/nope"}),
            Some("no such file"),
        ),
        AuditEvent::restart("git", 1, "process exited with code 1"),
        AuditEvent::tool_call(
            "git",
            "log",
            Duration::from_secs(30),
            CallOutcome::Timeout,
            &json!({}),
            Some("no answer within 30 s"),
        ),
        AuditEvent::disconnect(
            "git",
            DisconnectReason::ProcessExit,
            Some(1),
            Some("killed"),
        ),
        AuditEvent::dropped(5),
    ]
}

fn record_all(config: &AuditConfig, events: &[AuditEvent]) -> TestResult {
    let log = AuditLog::open(config)?;
    for event in events {
        log.record(event.clone());
    }
    log.close(WAIT)?;
    Ok(())
}

fn kinds(events: &[AuditEvent]) -> Vec<&'static str> {
    events.iter().map(AuditEvent::kind_name).collect()
}

fn check_queries(config: &AuditConfig, written: &[AuditEvent]) -> TestResult {
    let all = audit::query(config, &AuditQuery::default())?;
    assert_eq!(
        all, written,
        "every kind reads back as written, oldest first"
    );

    let git = audit::query(
        config,
        &AuditQuery {
            server: Some("git".into()),
            ..AuditQuery::default()
        },
    )?;
    assert_eq!(
        kinds(&git),
        [
            "mcp_connect",
            "mcp_tool_call",
            "mcp_restart",
            "mcp_tool_call",
            "mcp_disconnect"
        ]
    );

    let read_file = audit::query(
        config,
        &AuditQuery {
            tool: Some("read_file".into()),
            ..AuditQuery::default()
        },
    )?;
    assert_eq!(read_file, [written[3].clone()]);

    let both = audit::query(
        config,
        &AuditQuery {
            server: Some("fs".into()),
            tool: Some("status".into()),
            ..AuditQuery::default()
        },
    )?;
    assert!(both.is_empty(), "{both:?}");

    let newest_two = audit::query(
        config,
        &AuditQuery {
            limit: Some(2),
            ..AuditQuery::default()
        },
    )?;
    assert_eq!(
        newest_two,
        written[6..],
        "limit keeps the newest, newest last"
    );

    let recent = audit::query(
        config,
        &AuditQuery {
            since: Some(audit::parse_since("1h")?),
            ..AuditQuery::default()
        },
    )?;
    assert_eq!(recent.len(), written.len());
    Ok(())
}

#[test]
fn every_event_kind_round_trips_through_sqlite_and_filters_by_server_and_tool() -> TestResult {
    let dir = TempDir::new("sqlite");
    let config = sqlite(&dir.path("nested/dir/audit.sqlite3"));
    let written = one_of_each();
    record_all(&config, &written)?;
    check_queries(&config, &written)
}

#[test]
fn every_event_kind_round_trips_through_jsonl_and_filters_by_server_and_tool() -> TestResult {
    let dir = TempDir::new("jsonl");
    let path = dir.path("audit.jsonl");
    let config = jsonl(&path);
    let written = one_of_each();
    record_all(&config, &written)?;
    check_queries(&config, &written)?;

    let text = std::fs::read_to_string(&path)?;
    assert_eq!(text.lines().count(), written.len());
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap_or_default())?;
    assert_eq!(first["kind"], "mcp_connect");
    assert_eq!(first["server"], "git");
    assert_eq!(first["tool_count"], 12);
    let ts = first["timestamp"].as_str().unwrap_or_default();
    assert!(ts.parse::<Timestamp>().is_ok() && ts.len() == 24, "{ts}");
    Ok(())
}

#[test]
fn jsonl_sink_appends_after_a_torn_last_line_without_losing_events() -> TestResult {
    let dir = TempDir::new("append");
    let path = dir.path("audit.jsonl");
    let config = jsonl(&path);
    record_all(&config, &[AuditEvent::connect("a", "stdio", 1)])?;
    std::fs::write(
        &path,
        std::fs::read_to_string(&path)? + "{\"timestamp\":\"20",
    )?;
    record_all(&config, &[AuditEvent::connect("b", "stdio", 2)])?;
    let events = audit::query(&config, &AuditQuery::default())?;
    let servers: Vec<_> = events.iter().filter_map(AuditEvent::server).collect();
    assert_eq!(servers, ["a", "b"]);
    Ok(())
}

#[test]
fn since_excludes_older_events() -> TestResult {
    let dir = TempDir::new("since");
    for config in [sqlite(&dir.path("a.sqlite3")), jsonl(&dir.path("a.jsonl"))] {
        let mut old = AuditEvent::connect("git", "stdio", 1);
        old.timestamp = Timestamp::now().saturating_sub(Duration::from_secs(7200));
        let new = AuditEvent::connect("git", "stdio", 2);
        record_all(&config, &[old.clone(), new.clone()])?;
        let q = |since: &str| -> Result<Vec<AuditEvent>, Box<dyn std::error::Error>> {
            Ok(audit::query(
                &config,
                &AuditQuery {
                    since: Some(audit::parse_since(since)?),
                    ..AuditQuery::default()
                },
            )?)
        };
        assert_eq!(q("1h")?, std::slice::from_ref(&new));
        assert_eq!(q("3h")?, [old, new]);
    }
    Ok(())
}

#[test]
fn a_flood_on_a_tiny_queue_never_blocks_and_records_what_it_dropped() -> TestResult {
    const SENT: u64 = 100_000;
    let dir = TempDir::new("flood");
    let config = sqlite(&dir.path("audit.sqlite3"));
    let log = AuditLog::open_with_capacity(&config, 8)?;
    let args = json!({"path": "/x"});
    for i in 0..SENT {
        log.record(AuditEvent::tool_call(
            "s",
            "t",
            Duration::from_millis(i % 100),
            CallOutcome::Ok,
            &args,
            None,
        ));
    }
    log.close(WAIT)?;

    let events = audit::query(&config, &AuditQuery::default())?;
    let written = events.iter().filter(|e| e.tool() == Some("t")).count() as u64;
    let dropped: u64 = events
        .iter()
        .filter_map(|e| match e.kind {
            AuditEventKind::AuditDropped { count } => Some(count),
            _ => None,
        })
        .sum();
    assert!(dropped > 0, "a queue of 8 must overflow under 100k records");
    assert_eq!(
        dropped + written,
        SENT,
        "dropped {dropped}, written {written}"
    );
    Ok(())
}

#[test]
fn argument_values_and_secrets_in_error_text_never_reach_the_files() -> TestResult {
    const CANARY: &str = "sk-CANARY-7f3a9b2c1d";
    let dir = TempDir::new("secrets");
    let args =
        json!({"api_key": CANARY, "query": format!("find {CANARY}"), "nested": {"token": CANARY}});
    let events = [
        AuditEvent::tool_call(
            "github",
            "search",
            Duration::from_millis(3),
            CallOutcome::Error,
            &args,
            Some(&format!(
                "upstream said: Authorization: Bearer {CANARY} rejected; token={CANARY}"
            )),
        ),
        AuditEvent::disconnect(
            "github",
            DisconnectReason::Error,
            None,
            Some(&format!(
                "GET https://x:{CANARY}@api.example/?api_key={CANARY}"
            )),
        ),
        AuditEvent::restart("github", 1, &format!("--api-key {CANARY}")),
    ];
    let sqlite_config = sqlite(&dir.path("audit.sqlite3"));
    let jsonl_config = jsonl(&dir.path("audit.jsonl"));
    record_all(&sqlite_config, &events)?;
    record_all(&jsonl_config, &events)?;

    let mut files = 0;
    for entry in std::fs::read_dir(&dir.0)? {
        let path = entry?.path();
        let bytes = std::fs::read(&path)?;
        let found = bytes.windows(CANARY.len()).any(|w| w == CANARY.as_bytes());
        assert!(!found, "secret value found in {}", path.display());
        files += 1;
    }
    assert!(files >= 2);

    for config in [&sqlite_config, &jsonl_config] {
        let back = audit::query(config, &AuditQuery::default())?;
        let AuditEventKind::McpToolCall {
            argument_names,
            error,
            ..
        } = &back[0].kind
        else {
            panic!("expected a tool call, got {:?}", back[0]);
        };
        assert_eq!(argument_names, &["api_key", "nested", "query"]);
        assert!(
            error.as_deref().is_some_and(|e| e.contains("Bearer ****")),
            "{error:?}"
        );
    }
    Ok(())
}

#[test]
fn long_error_texts_are_cut_to_500_characters() -> TestResult {
    let dir = TempDir::new("cut");
    let config = jsonl(&dir.path("audit.jsonl"));
    let long = "e".repeat(10_000);
    record_all(&config, &[AuditEvent::restart("s", 1, &long)])?;
    let back = audit::query(&config, &AuditQuery::default())?;
    let AuditEventKind::McpRestart { reason, .. } = &back[0].kind else {
        panic!("expected a restart, got {:?}", back[0]);
    };
    assert_eq!(reason.chars().count(), audit::MAX_TEXT_CHARS + 1);
    Ok(())
}

#[test]
fn flush_makes_events_visible_to_a_concurrent_reader() -> TestResult {
    let dir = TempDir::new("flush");
    let config = sqlite(&dir.path("audit.sqlite3"));
    let log = AuditLog::open(&config)?;
    log.record(AuditEvent::connect("git", "stdio", 1));
    log.flush(WAIT)?;
    assert_eq!(audit::query(&config, &AuditQuery::default())?.len(), 1);
    log.record(AuditEvent::connect("git", "stdio", 2));
    log.clone().flush(WAIT)?;
    assert_eq!(audit::query(&config, &AuditQuery::default())?.len(), 2);
    log.close(WAIT)?;
    log.close(WAIT)?;
    assert!(matches!(log.flush(WAIT), Err(audit::AuditError::Closed)));
    log.record(AuditEvent::connect("ignored", "stdio", 3));
    Ok(())
}

#[test]
fn disabled_and_unqueryable_sinks() -> TestResult {
    let off = AuditLog::open(&AuditConfig::Off)?;
    assert!(!off.is_enabled());
    off.record(AuditEvent::dropped(1));
    off.flush(WAIT)?;
    off.close(WAIT)?;
    for config in [AuditConfig::Stdout, AuditConfig::Off] {
        let err = audit::query(&config, &AuditQuery::default()).err();
        assert!(
            matches!(err, Some(audit::AuditError::NotQueryable { .. })),
            "{err:?}"
        );
    }
    let dir = TempDir::new("missing");
    for config in [
        sqlite(&dir.path("none.sqlite3")),
        jsonl(&dir.path("none.jsonl")),
    ] {
        let err = audit::query(&config, &AuditQuery::default()).err();
        assert!(
            matches!(err, Some(audit::AuditError::NotFound { .. })),
            "{err:?}"
        );
    }
    Ok(())
}

#[test]
fn opening_an_unwritable_path_names_it() {
    let dir = TempDir::new("unwritable");
    let file = dir.path("a-file");
    std::fs::write(&file, "x").expect("write");
    let err = AuditLog::open(&jsonl(&file.join("audit.jsonl"))).err();
    let text = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        text.contains("a-file") && text.contains("create directory"),
        "{text}"
    );
}

#[test]
fn stdout_sink_writes_json_lines() -> TestResult {
    if std::env::var_os("TOOLBRIDGE_AUDIT_STDOUT_CHILD").is_some() {
        let log = AuditLog::open(&AuditConfig::Stdout)?;
        log.record(AuditEvent::connect("child", "stdio", 4));
        log.close(WAIT)?;
        return Ok(());
    }
    let exe = std::env::current_exe()?;
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "stdout_sink_writes_json_lines",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TOOLBRIDGE_AUDIT_STDOUT_CHILD", "1")
        .output()?;
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout)?;
    // The harness prints "test … " on the same line before the event.
    let line = stdout
        .find("{\"timestamp\"")
        .and_then(|at| stdout[at..].lines().next())
        .ok_or_else(|| format!("no JSON line in: {stdout}"))?;
    let event: AuditEvent = serde_json::from_str(line)?;
    assert_eq!(event.server(), Some("child"));
    Ok(())
}
