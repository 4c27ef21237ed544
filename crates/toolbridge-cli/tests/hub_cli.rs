//! End-to-end tests of the `toolbridge` binary in hub mode: a
//! `toolbridge.toml` in a temporary directory pointing at the real fixture
//! server (`toolbridge-fixture --protocol legacy`).

mod common;

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::atomic::{AtomicUsize, Ordering},
};

use common::{Run, fixture, toolbridge_command};
use serde_json::Value;

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "toolbridge-hub-cli-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        // Canonical, so it compares equal to what the binary sees as its
        // current directory.
        Self(path.canonicalize().expect("canonical temp dir"))
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `name` in the directory and returns its path.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent dir");
        }
        std::fs::write(&path, text).expect("write file");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A `[servers.NAME]` table running the fixture.
fn fixture_server(name: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"{}\"\nargs = [\"--protocol\", \"legacy\"]\n",
        fixture()
    )
}

/// Two fixture servers, `one` (with a secret env value) and `two`.
fn good_config() -> String {
    format!(
        "{}env = {{ API_TOKEN = \"canary-secret-123\" }}\n\n{}",
        fixture_server("one"),
        fixture_server("two")
    )
}

/// Runs the binary in `cwd` with `home` as HOME and no XDG_CONFIG_HOME
/// unless `xdg` is given, so no real user config is ever found.
fn run_in(cwd: &Path, home: &Path, xdg: Option<&Path>, args: &[&str]) -> Run {
    let mut command: Command = toolbridge_command(args);
    command.current_dir(cwd).env("HOME", home);
    match xdg {
        Some(dir) => command.env("XDG_CONFIG_HOME", dir),
        None => command.env_remove("XDG_CONFIG_HOME"),
    };
    command.output().expect("run the toolbridge binary").into()
}

/// Runs the binary with an explicit `--config`, isolated from any user
/// config.
fn run_with_config(dir: &TempDir, args: &[&str]) -> Run {
    let home = TempDir::new("home");
    run_in(dir.path(), home.path(), None, args)
}

/// The exposed names in a hub `tools --json` output.
fn exposed_names(json: &str) -> Vec<String> {
    let tools: Value = serde_json::from_str(json).expect("stdout is JSON");
    tools
        .as_array()
        .expect("a JSON array")
        .iter()
        .map(|t| t["exposed"].as_str().expect("an exposed name").to_owned())
        .collect()
}

use toolbridge_testkit::process_alive;

// -------------------------------------------------------------- servers

#[test]
fn servers_shows_two_ready_and_one_failed_with_its_cause_and_exits_3() {
    let dir = TempDir::new("servers");
    let config = dir.write(
        "hub.toml",
        &format!(
            "{}\n[servers.broken]\ncommand = \"/nonexistent/toolbridge-server\"\n\n\
             [servers.sleepy]\ncommand = \"{}\"\nenabled = false\n",
            good_config(),
            fixture()
        ),
    );
    let run = run_with_config(&dir, &["servers", "--config", config.to_str().unwrap()]);
    assert_eq!(run.code, Some(3), "{run:?}");

    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "header + 4 servers: {}", run.stdout);
    assert!(lines[0].starts_with("NAME"), "{}", lines[0]);
    for (line, name) in lines[1..3].iter().zip(["one", "two"]) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(&cells[..3], [name, "stdio", "ready"], "{line}");
        assert!(cells[3].parse::<usize>().unwrap() > 0, "tool count: {line}");
        assert_eq!(cells[5], "ms", "startup time: {line}");
    }
    let broken = lines[3];
    assert!(broken.starts_with("broken "), "{broken}");
    assert!(broken.contains(" failed "), "{broken}");
    assert!(
        broken.contains("/nonexistent/toolbridge-server"),
        "the cause: {broken}"
    );
    assert!(broken.contains("No such file"), "the cause: {broken}");
    assert!(lines[4].starts_with("sleepy"), "{}", lines[4]);
    assert!(lines[4].contains("disabled"), "{}", lines[4]);

    // One progress line per enabled server on stderr.
    let progress: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(progress.len(), 3, "{}", run.stderr);
    assert!(
        progress
            .iter()
            .any(|l| l.starts_with("ready   one (stdio, "))
    );
    assert!(
        progress
            .iter()
            .any(|l| l.starts_with("ready   two (stdio, "))
    );
    assert!(
        progress
            .iter()
            .any(|l| l.starts_with("failed  broken") && l.contains("No such file")),
        "{}",
        run.stderr
    );
}

#[test]
fn servers_all_ready_exits_0() {
    let dir = TempDir::new("servers-ok");
    let config = dir.write("toolbridge.toml", &good_config());
    let run = run_with_config(&dir, &["servers", "--config", config.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.lines().count(), 3, "{}", run.stdout);
}

// ---------------------------------------------------------------- tools

#[test]
fn tools_config_lists_exposed_names_and_json_and_server_filter_work() {
    let dir = TempDir::new("tools");
    let config = dir.write("toolbridge.toml", &good_config());
    let config = config.to_str().unwrap();

    let run = run_with_config(&dir, &["tools", "--config", config]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let echo = run
        .stdout
        .lines()
        .find(|l| l.starts_with("mcp_one_echo "))
        .unwrap_or_else(|| panic!("no mcp_one_echo line in {}", run.stdout));
    let cells: Vec<&str> = echo.split_whitespace().collect();
    assert_eq!(cells[1], "one", "{echo}");
    assert!(echo.contains("Echo"), "the description: {echo}");
    assert!(run.stdout.lines().any(|l| l.starts_with("mcp_two_echo ")));
    assert_eq!(run.stderr, "", "nothing on stderr on success");

    let run = run_with_config(&dir, &["tools", "--config", config, "--json"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let tools: Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    let echo = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["exposed"] == "mcp_one_echo")
        .expect("mcp_one_echo in the JSON");
    assert_eq!(echo["server"], "one");
    assert_eq!(echo["tool"], "echo");
    assert_eq!(echo["spec"]["name"], "mcp_one_echo");
    assert_eq!(
        echo["spec"]["parameters"]["required"],
        serde_json::json!(["message"])
    );

    let run = run_with_config(
        &dir,
        &["tools", "--config", config, "--json", "--server", "two"],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let names = exposed_names(&run.stdout);
    assert!(names.contains(&"mcp_two_echo".to_owned()), "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("mcp_two_")), "{names:?}");
}

#[test]
fn tools_with_an_unknown_server_is_a_usage_error_listing_the_servers() {
    let dir = TempDir::new("tools-unknown");
    let config = dir.write("toolbridge.toml", &good_config());
    let run = run_with_config(
        &dir,
        &[
            "tools",
            "--config",
            config.to_str().unwrap(),
            "--server",
            "three",
        ],
    );
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("'three'"), "{}", run.stderr);
    assert!(run.stderr.contains("one, two"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

// ----------------------------------------------------------------- call

#[test]
fn call_through_the_hub_prints_the_result_and_keeps_exit_codes() {
    let dir = TempDir::new("call");
    let config = dir.write("toolbridge.toml", &good_config());
    let config = config.to_str().unwrap();

    let run = run_with_config(
        &dir,
        &[
            "call",
            "mcp_one_echo",
            "--config",
            config,
            "--args",
            r#"{"message":"hi"}"#,
        ],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "Echo: hi\n");
    assert_eq!(run.stderr, "");

    let run = run_with_config(&dir, &["call", "mcp_two_fail", "--config", config]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(run.stdout, "something went wrong\n");

    let run = run_with_config(
        &dir,
        &["call", "mcp_one_hang", "--config", config, "--timeout", "1"],
    );
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(run.stderr.contains("timed out"), "{}", run.stderr);
}

#[test]
fn call_leaves_no_server_process_behind() {
    let dir = TempDir::new("call-pid");
    let config = dir.write("toolbridge.toml", &good_config());
    let run = run_with_config(
        &dir,
        &["call", "mcp_one_pid", "--config", config.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let pid: u32 = run.stdout.trim().parse().expect("a pid");
    assert!(!process_alive(pid), "server {pid} outlived the command");
}

#[test]
fn call_of_an_unknown_exposed_tool_exits_2_naming_it() {
    let dir = TempDir::new("call-unknown");
    let config = dir.write("toolbridge.toml", &good_config());
    let run = run_with_config(
        &dir,
        &[
            "call",
            "mcp_one_no_such_tool",
            "--config",
            config.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("'mcp_one_no_such_tool'"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

// --------------------------------------------------------------- config

#[test]
fn config_check_prints_the_servers_with_secret_values_masked() {
    let dir = TempDir::new("check");
    let config = dir.write("toolbridge.toml", &good_config());
    let run = run_with_config(&dir, &["config", "check", config.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("server 'one' (stdio)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("server 'two' (stdio)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("API_TOKEN"), "{}", run.stdout);
    assert!(
        !run.stdout.contains("canary-secret-123") && !run.stderr.contains("canary-secret-123"),
        "the secret leaked: {run:?}"
    );
}

#[test]
fn config_with_a_missing_variable_exits_2_naming_it() {
    let dir = TempDir::new("missing-var");
    let config = dir.write(
        "toolbridge.toml",
        &format!(
            "{}env = {{ TOKEN = \"${{TOOLBRIDGE_TEST_MISSING_VAR}}\" }}\n",
            fixture_server("one")
        ),
    );
    let config = config.to_str().unwrap();
    for args in [
        &["config", "check", config][..],
        &["servers", "--config", config],
        &["tools", "--config", config],
    ] {
        let home = TempDir::new("home");
        let output = toolbridge_command(args)
            .current_dir(dir.path())
            .env("HOME", home.path())
            .env_remove("TOOLBRIDGE_TEST_MISSING_VAR")
            .output()
            .expect("run toolbridge");
        let run = Run::from(output);
        assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
        assert!(
            run.stderr.contains("TOOLBRIDGE_TEST_MISSING_VAR"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains("'one'"),
            "names the server: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(config),
            "names the file: {}",
            run.stderr
        );
    }
}

// ------------------------------------------------------------ discovery

#[test]
fn tools_without_config_uses_toolbridge_toml_in_the_current_directory() {
    let dir = TempDir::new("discover-cwd");
    dir.write("toolbridge.toml", &good_config());
    let home = TempDir::new("home");
    let run = run_in(
        dir.path(),
        home.path(),
        Some(&home.path().join("xdg")),
        &["tools", "--json"],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        exposed_names(&run.stdout).contains(&"mcp_one_echo".to_owned()),
        "{}",
        run.stdout
    );
}

#[test]
fn call_without_config_uses_the_user_config_directory() {
    let cwd = TempDir::new("discover-empty");
    let xdg = TempDir::new("discover-xdg");
    xdg.write("toolbridge/toolbridge.toml", &good_config());
    let home = TempDir::new("home");
    let run = run_in(
        cwd.path(),
        home.path(),
        Some(xdg.path()),
        &["call", "mcp_two_echo", "--args", r#"{"message":"found"}"#],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "Echo: found\n");

    // Without XDG_CONFIG_HOME: ~/.config/toolbridge/toolbridge.toml.
    let home = TempDir::new("home-config");
    home.write(".config/toolbridge/toolbridge.toml", &good_config());
    let run = run_in(
        cwd.path(),
        home.path(),
        None,
        &["call", "mcp_one_echo", "--args", r#"{"message":"home"}"#],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "Echo: home\n");
}

#[test]
fn no_config_anywhere_is_a_usage_error_saying_where_it_looked() {
    let cwd = TempDir::new("nowhere");
    let home = TempDir::new("home");
    let xdg = home.path().join("xdg");
    for args in [&["tools"][..], &["servers"], &["call", "mcp_one_echo"]] {
        let run = run_in(cwd.path(), home.path(), Some(&xdg), args);
        assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
        let here = cwd.path().join("toolbridge.toml");
        let user = xdg.join("toolbridge").join("toolbridge.toml");
        assert!(
            run.stderr.contains(here.to_str().unwrap()),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains(user.to_str().unwrap()),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("--config"), "{}", run.stderr);
        assert_eq!(run.stdout, "");
    }
}

// ---------------------------------------------------------------- audit

/// Audit events as the log writes them (its documented JSON shape).
const AUDIT_LINES: &str = concat!(
    r#"{"timestamp":"2020-01-01T00:00:00.000Z","kind":"mcp_connect","server":"one","transport":"stdio","tool_count":20}"#,
    "\n",
    r#"{"timestamp":"2020-01-01T00:00:01.000Z","kind":"mcp_tool_call","server":"one","tool":"echo","duration_ms":3,"outcome":"ok","argument_names":["message"],"error":null}"#,
    "\n",
    r#"{"timestamp":"2020-01-01T00:00:02.000Z","kind":"mcp_tool_call","server":"two","tool":"add","duration_ms":4,"outcome":"ok","argument_names":["a","b"],"error":null}"#,
    "\n",
);

#[test]
fn audit_reads_the_log_the_config_names_with_filters() {
    let dir = TempDir::new("audit");
    let log = dir.write("audit.jsonl", AUDIT_LINES);
    let config = dir.write(
        "toolbridge.toml",
        &format!(
            "audit = {{ sink = \"jsonl\", path = \"{}\" }}\n\n{}",
            log.display(),
            good_config()
        ),
    );
    let config = config.to_str().unwrap();

    let run = run_with_config(&dir, &["audit", "--config", config, "--json"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let events: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(events.len(), 3, "{}", run.stdout);
    assert!(
        events
            .iter()
            .any(|e| e["kind"] == "mcp_tool_call" && e["tool"] == "echo"),
        "{}",
        run.stdout
    );

    let run = run_with_config(
        &dir,
        &[
            "audit", "--config", config, "--server", "one", "--tool", "echo",
        ],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert!(lines[0].contains("mcp_tool_call"), "{}", lines[0]);
    assert!(lines[0].contains("echo ok 3 ms"), "{}", lines[0]);

    // The events are from 2020: none in the last hour.
    let run = run_with_config(
        &dir,
        &["audit", "--config", config, "--since", "1h", "--json"],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "");

    let run = run_with_config(&dir, &["audit", "--config", config, "--since", "soon"]);
    assert_eq!(run.code, Some(2), "{run:?}");
}

#[test]
fn audit_of_a_sink_that_cannot_be_read_back_is_a_usage_error() {
    let dir = TempDir::new("audit-stdout");
    let config = dir.write(
        "toolbridge.toml",
        &format!("audit = {{ sink = \"stdout\" }}\n\n{}", good_config()),
    );
    let run = run_with_config(&dir, &["audit", "--config", config.to_str().unwrap()]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("cannot be queried"), "{}", run.stderr);
}

#[test]
fn calls_through_the_hub_are_audited_and_the_audit_command_shows_them() {
    let dir = TempDir::new("audit-live");
    let log = dir.path().join("live.jsonl");
    let config = dir.write(
        "toolbridge.toml",
        &format!(
            "audit = {{ sink = \"jsonl\", path = \"{}\" }}\n\n{}",
            log.display(),
            good_config()
        ),
    );
    let config = config.to_str().unwrap();
    let call = run_with_config(
        &dir,
        &[
            "call",
            "mcp_one_echo",
            "--config",
            config,
            "--args",
            r#"{"message":"audit-canary-55"}"#,
        ],
    );
    assert_eq!(call.code, Some(0), "{call:?}");
    let run = run_with_config(
        &dir,
        &["audit", "--config", config, "--tool", "echo", "--json"],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let events: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert!(
        events.iter().any(|e| e["kind"] == "mcp_tool_call"
            && e["server"] == "one"
            && e["outcome"] == "ok"
            && e["argument_names"] == serde_json::json!(["message"])),
        "{}",
        run.stdout
    );
    let stored = std::fs::read_to_string(&log).unwrap();
    assert!(
        stored.contains("mcp_connect") && stored.contains("mcp_disconnect"),
        "{stored}"
    );
    assert!(
        !stored.contains("audit-canary-55"),
        "argument values must not be stored"
    );
    assert!(
        !stored.contains("canary-secret-123"),
        "configured secrets must not be stored"
    );
}
