//! End-to-end tests of the `toolbridge` binary against the real fixture
//! server (`toolbridge-fixture`), over stdio and Streamable HTTP.

mod common;

use std::{
    io::{BufRead, BufReader},
    net::TcpListener,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use common::{Run, fixture, fixture_bin, toolbridge, toolbridge_command};
use serde_json::Value;

/// Runs the binary with `args` followed by `-- <fixture> fixture_args…`.
fn against_fixture(args: &[&str], fixture_args: &[&str]) -> Run {
    let fixture = fixture();
    let mut all: Vec<&str> = args.to_vec();
    all.push("--");
    all.push(&fixture);
    all.extend_from_slice(fixture_args);
    toolbridge(&all)
}

/// The names in a `tools --json` output.
fn names(json: &str) -> Vec<String> {
    let specs: Value = serde_json::from_str(json).expect("stdout is JSON");
    specs
        .as_array()
        .expect("a JSON array")
        .iter()
        .map(|s| s["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// The fixture serving Streamable HTTP on a free loopback port; killed on
/// drop.
struct HttpFixture {
    child: Child,
    url: String,
}

impl HttpFixture {
    fn start() -> Self {
        let mut child = Command::new(fixture_bin())
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the HTTP fixture");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the fixture's first line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Self { child, url }
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

use toolbridge_testkit::process_alive;

/// The live children of process `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // Fields after the command name: state, ppid, …
                    let rest = stat.rsplit(')').next()?.to_owned();
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .filter(|&pid| process_alive(pid))
        .collect()
}

/// Waits for `child` to exit, for at most `limit`.
fn wait_with_limit(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---------------------------------------------------------------- tools

#[test]
fn tools_table_lists_the_fixture_tools_one_per_line() {
    let run = against_fixture(&["tools"], &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let echo = run
        .stdout
        .lines()
        .find(|l| l.starts_with("echo "))
        .unwrap_or_else(|| panic!("no echo line in {:?}", run.stdout));
    assert!(echo.contains("Echo: {message}"), "{echo}");
    assert!(run.stdout.lines().any(|l| l.starts_with("add ")));
    assert!(
        run.stdout.lines().all(|l| l.chars().count() <= 80),
        "{}",
        run.stdout
    );
    assert_eq!(run.stderr, "", "nothing on stderr on success");
}

#[test]
fn tools_json_with_prefix_and_allow_gives_only_the_prefixed_tool() {
    let run = against_fixture(
        &["tools", "--json", "--prefix", "fx", "--allow", "echo"],
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(names(&run.stdout), ["fx__echo"]);
    let specs: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        specs[0]["parameters"]["required"],
        serde_json::json!(["message"])
    );
}

#[test]
fn tools_block_leaves_out_the_blocked_tools() {
    let run = against_fixture(
        &["tools", "--json", "--block", "echo", "--block", "hang"],
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let names = names(&run.stdout);
    assert!(
        !names.iter().any(|n| n == "echo" || n == "hang"),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n == "add"), "{names:?}");
}

#[test]
fn tools_allow_of_an_unknown_name_warns_on_stderr() {
    let run = against_fixture(&["tools", "--json", "--allow", "ecko"], &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(names(&run.stdout), Vec::<String>::new());
    assert!(run.stderr.contains("--allow ecko"), "{}", run.stderr);
}

#[test]
fn tools_with_an_invalid_prefix_is_a_usage_error() {
    let run = against_fixture(&["tools", "--prefix", "has space"], &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("--prefix"), "{}", run.stderr);
}

// ----------------------------------------------------------------- call

#[test]
fn call_echo_prints_its_text() {
    let run = against_fixture(&["call", "echo", "--args", r#"{"message":"hi"}"#], &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "Echo: hi\n");
    assert_eq!(run.stderr, "");
}

#[test]
fn call_args_from_a_file_and_from_stdin_carry_large_arguments() {
    // Larger than a command line may be (ARG_MAX is 2 MiB on Linux).
    let message = "m".repeat(3 * 1024 * 1024);
    let args = serde_json::json!({ "message": message }).to_string();
    let path = std::env::temp_dir().join(format!("toolbridge-args-{}.json", std::process::id()));
    std::fs::write(&path, &args).unwrap();
    let from_file = against_fixture(
        &["call", "echo", "--args", &format!("@{}", path.display())],
        &[],
    );
    assert_eq!(from_file.code, Some(0), "{}", from_file.stderr);
    assert_eq!(from_file.stdout.len(), "Echo: ".len() + message.len() + 1);
    let _ = std::fs::remove_file(&path);

    let fixture = fixture();
    let mut child = toolbridge_command(&["call", "echo", "--args", "-", "--", fixture.as_str()])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(br#"{"message":"from stdin"}"#).unwrap();
    }
    let from_stdin: Run = child.wait_with_output().unwrap().into();
    assert_eq!(from_stdin.code, Some(0), "{}", from_stdin.stderr);
    assert_eq!(from_stdin.stdout, "Echo: from stdin\n");

    let missing = against_fixture(&["call", "echo", "--args", "@/nonexistent/args.json"], &[]);
    assert_eq!(missing.code, Some(2), "{missing:?}");
    assert!(
        missing.stderr.contains("/nonexistent/args.json"),
        "{}",
        missing.stderr
    );
}

#[test]
fn call_of_a_tool_reporting_an_error_prints_its_text_and_exits_1() {
    let run = against_fixture(&["call", "fail"], &[]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(run.stdout, "something went wrong\n");
    assert!(
        run.stderr.contains("tool 'fail' reported an error"),
        "{}",
        run.stderr
    );
}

#[test]
fn call_json_of_a_failing_tool_has_is_error_true() {
    let run = against_fixture(&["call", "fail", "--json"], &[]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let result: Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    assert_eq!(result["isError"], true);
}

#[test]
fn call_mixed_json_shows_all_four_content_items_in_order() {
    let run = against_fixture(&["call", "mixed", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let result: Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    let kinds: Vec<&str> = result["content"]
        .as_array()
        .expect("content array")
        .iter()
        .map(|c| c["type"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["text", "image", "resource", "resource_link"]);
    assert_eq!(result["isError"], false);
}

#[test]
fn call_mixed_prints_text_and_placeholders_for_other_content() {
    let run = against_fixture(&["call", "mixed"], &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", run.stdout);
    assert_eq!(lines[0], "first");
    assert!(lines[1].starts_with("[image image/png, "), "{}", lines[1]);
    assert!(
        lines[2].starts_with("[resource file:///fixture/readme.txt"),
        "{}",
        lines[2]
    );
    assert_eq!(lines[3], "[resource link file:///fixture/link.txt]");
}

#[test]
fn call_add_json_carries_structured_content() {
    let run = against_fixture(
        &["call", "add", "--json", "--args", r#"{"a":2,"b":3}"#],
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let result: Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    assert_eq!(result["structuredContent"]["sum"], 5.0);
}

#[test]
fn call_with_args_that_are_not_a_json_object_is_a_usage_error() {
    let run = against_fixture(&["call", "echo", "--args", "[1, 2]"], &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("--args"), "{}", run.stderr);
    assert!(
        run.stderr.contains("must be a JSON object"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("not an array"), "{}", run.stderr);

    let run = against_fixture(&["call", "echo", "--args", "{message: hi}"], &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("not valid JSON"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn call_env_flag_sets_a_variable_for_the_server() {
    let run = against_fixture(
        &["call", "env", "--env", "TOOLBRIDGE_CLI_TEST=forty two"],
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let env: Value = serde_json::from_str(run.stdout.trim()).expect("env JSON");
    assert_eq!(env["TOOLBRIDGE_CLI_TEST"], "forty two");
}

#[test]
fn call_of_an_unknown_tool_exits_3_naming_it() {
    let run = against_fixture(&["call", "no_such_tool"], &[]);
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(run.stderr.contains("no_such_tool"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn call_timeout_on_a_hanging_tool_exits_3_saying_timed_out() {
    let started = Instant::now();
    let run = against_fixture(&["call", "hang", "--timeout", "1"], &[]);
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(run.stderr.contains("timed out"), "{}", run.stderr);
    assert!(run.stderr.contains("hang"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn server_process_is_gone_after_the_command() {
    let run = against_fixture(&["call", "pid"], &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let pid: u32 = run.stdout.trim().parse().expect("a pid");
    assert!(!process_alive(pid), "server {pid} outlived the command");
}

#[test]
fn sigint_during_a_call_cleans_up_the_server_and_exits_130() {
    let fixture = fixture();
    let mut child = toolbridge_command(&["call", "hang", "--timeout", "60", "--", &fixture])
        .spawn()
        .expect("spawn toolbridge");
    let parent = child.id();
    let deadline = Instant::now() + Duration::from_secs(20);
    let server = loop {
        if let Some(&pid) = children_of(parent).first() {
            break pid;
        }
        assert!(Instant::now() < deadline, "the server never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Let the handshake finish and the call go out.
    std::thread::sleep(Duration::from_millis(500));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(parent as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("send SIGINT");
    let status = wait_with_limit(&mut child, Duration::from_secs(15));
    let output = child.wait_with_output().expect("collect output");
    let run = Run::from(output);
    assert_eq!(status.and_then(|s| s.code()), Some(130), "{run:?}");
    assert!(
        run.stderr.contains("interrupted by SIGINT"),
        "{}",
        run.stderr
    );
    assert!(
        !process_alive(server),
        "server {server} outlived the command"
    );
}

// ------------------------------------------------------------ server flags

#[test]
fn no_server_given_is_a_usage_error() {
    let run = toolbridge(&["tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("no server given"), "{}", run.stderr);
    assert!(run.stderr.contains("--url"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn both_a_command_and_a_url_is_a_usage_error() {
    let run = toolbridge(&["tools", "--url", "http://127.0.0.1:1/mcp", "--", "server"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
}

#[test]
fn header_without_url_is_a_usage_error() {
    let run = against_fixture(&["tools", "-H", "X-A: 1"], &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
}

#[test]
fn cwd_that_does_not_exist_is_a_usage_error() {
    let run = against_fixture(&["tools", "--cwd", "/nonexistent/toolbridge-dir"], &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("--cwd"), "{}", run.stderr);
}

#[test]
fn command_that_does_not_exist_exits_3_naming_it() {
    let run = toolbridge(&["tools", "--", "toolbridge-no-such-command-xyz"]);
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("could not start `toolbridge-no-such-command-xyz`"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("No such file or directory").count(),
        1,
        "the cause is not repeated: {}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn server_exiting_at_startup_exits_3_with_its_stderr() {
    let run = against_fixture(&["tools"], &["--exit-at-startup", "3"]);
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(
        run.stderr.contains("exited during startup"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("exit code 3"), "{}", run.stderr);
    assert!(run.stderr.contains("fatal: config file"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn slow_server_past_the_startup_timeout_exits_3() {
    let run = against_fixture(
        &["tools", "--startup-timeout", "0.5", "--name", "slowpoke"],
        &["--slow-start", "5000"],
    );
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(run.stderr.contains("'slowpoke'"), "{}", run.stderr);
    assert!(run.stderr.contains("0.5 s"), "{}", run.stderr);
}

#[test]
fn errors_and_verbose_logs_never_reach_stdout() {
    // A crash mid-call with info logging: the server's stderr is logged,
    // and all of it goes to stderr.
    let run = against_fixture(&["-v", "call", "crash"], &[]);
    assert_eq!(run.code, Some(3), "{run:?}");
    assert_eq!(run.stdout, "", "stdout must stay empty on error");
    assert!(
        run.stderr.contains("toolbridge::server_stderr"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("crashing now with code 7"),
        "{}",
        run.stderr
    );

    // Successful JSON output with debug logging is still pure JSON.
    let run = against_fixture(&["-vv", "tools", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!names(&run.stdout).is_empty());
    assert!(run.stderr.contains("DEBUG"), "{}", run.stderr);
}

#[test]
fn rust_log_overrides_the_default_level() {
    let fixture = fixture();
    let output = toolbridge_command(&["tools", "--", &fixture])
        .env("RUST_LOG", "toolbridge=debug")
        .output()
        .expect("run toolbridge");
    let run = Run::from(output);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.contains("spawned server process"),
        "{}",
        run.stderr
    );
}

#[test]
fn stderr_that_is_not_a_terminal_gets_no_spinner() {
    let run = against_fixture(&["tools"], &["--slow-start", "300"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stderr, "", "no spinner or control codes on a pipe");
}

#[test]
fn help_and_version_exit_0_and_unknown_flags_exit_2() {
    let run = toolbridge(&["--help"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("Usage"), "{}", run.stdout);
    let run = toolbridge(&["call", "--help"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("--args"), "{}", run.stdout);
    let run = toolbridge(&["--version"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.starts_with("toolbridge "), "{}", run.stdout);
    let run = toolbridge(&["tools", "--no-such-flag"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let run = toolbridge(&[] as &[&str]);
    assert_eq!(run.code, Some(2), "{run:?}");
}

// ----------------------------------------------------------------- HTTP

#[test]
fn url_server_lists_tools_and_calls_echo() {
    let http = HttpFixture::start();
    let run = toolbridge(&["tools", "--url", &http.url]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.lines().any(|l| l.starts_with("echo ")),
        "{}",
        run.stdout
    );

    let run = toolbridge(&[
        "call",
        "echo",
        "--args",
        r#"{"message":"over http"}"#,
        "--url",
        &http.url,
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "Echo: over http\n");
}

#[test]
fn url_header_flag_is_sent_with_requests() {
    let http = HttpFixture::start();
    let run = toolbridge(&[
        "call",
        "headers",
        "--url",
        &http.url,
        "-H",
        "X-Toolbridge-Test: yes please",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let headers: Value = serde_json::from_str(run.stdout.trim()).expect("headers JSON");
    assert_eq!(
        headers["x-toolbridge-test"],
        serde_json::json!(["yes please"])
    );
}

#[test]
fn url_that_is_not_http_is_a_config_error() {
    let run = toolbridge(&["tools", "--url", "ftp://127.0.0.1/mcp"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("not http or https"), "{}", run.stderr);
}

#[test]
fn url_where_nothing_listens_exits_3() {
    // A port that was free a moment ago: connections are refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let run = toolbridge(&["tools", "--url", &url, "--startup-timeout", "10"]);
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(run.stderr.contains(&url), "names the URL: {}", run.stderr);
    assert_eq!(
        run.stderr.lines().count(),
        1,
        "one error, no log noise: {}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}
