//! Interop with the official npm reference servers (pinned in
//! `interop/package.json`, installed by `npm ci --prefix interop`):
//! `@modelcontextprotocol/server-everything` over stdio and Streamable HTTP,
//! and `@modelcontextprotocol/server-filesystem` through the bridge.
//!
//! Both are servers of the `initialize` era: toolbridge's `server/discover`
//! probe is refused (stdio: `-32601`; HTTP: `400` with `"id": null`, `-32000`
//! "Bad Request: Server not initialized") and the connection falls back to
//! `initialize`.
//!
//! Each test skips (with a message) when the servers are not installed,
//! unless `TOOLBRIDGE_INTEROP_REQUIRED=1`, where it fails.

mod common;

use std::{
    io::{BufRead, BufReader},
    net::TcpListener,
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex, mpsc},
    time::Duration,
};

use nix::{
    sys::signal::{Signal, killpg},
    unistd::Pid,
};
use serde_json::json;
use toolbridge::{
    Tool, ToolFilter,
    mcp::{
        BridgeOptions, McpServer, McpServerStdio, McpServerStreamableHttp,
        mcp_server_to_function_tools,
    },
};

/// The stateless-era version a legacy server must never be reported as.
const STATELESS_ERA: &str = "2026-07-28";
/// Hang guard for a node server to start (a cold start reads many modules).
const START_WAIT: Duration = Duration::from_secs(60);
/// Hang guard for a stdio server's process to be gone after `cleanup()`.
const EXIT_WAIT: Duration = Duration::from_secs(10);

fn bin(interop: &Path, name: &str) -> String {
    interop
        .join(".bin")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Asserts (bounded) that the process `pid` is gone.
async fn assert_gone(pid: u32) {
    let deadline = tokio::time::Instant::now() + EXIT_WAIT;
    while common::process_alive(pid) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "server process {pid} still exists {EXIT_WAIT:?} after cleanup()"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Lists `echo`, calls it, and checks the negotiated version is a legacy
/// one; returns that version.
async fn assert_echo_works<S: McpServer>(server: &S) -> String {
    let version = server
        .handle()
        .protocol_version()
        .expect("a negotiated protocol version");
    assert_ne!(
        version, STATELESS_ERA,
        "server-everything is a legacy (initialize) server"
    );
    assert!(
        version.as_str() >= "2024-11-05" && version.as_str() <= "2025-11-25",
        "unexpected legacy version {version:?}"
    );

    let tools = server.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"echo"), "no echo tool in {names:?}");

    let reply = server
        .call_tool("echo", json!({"message": "hi"}))
        .await
        .expect("tools/call echo");
    assert!(!reply.is_error, "echo reported an error: {reply:?}");
    assert_eq!(reply.text_content(), "Echo: hi");
    version
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio_falls_back_to_initialize_and_echoes() {
    let Some(interop) = common::interop_dir() else {
        return;
    };
    let server =
        McpServerStdio::command(bin(&interop, "mcp-server-everything"), Vec::<String>::new())
            .with_name("everything")
            .with_startup_timeout(START_WAIT);
    server
        .connect()
        .await
        .expect("connect to server-everything over stdio");
    // The command is a `#!/usr/bin/env node` script: env execs node in place,
    // so this is node's pid.
    let pid = server.handle().pid().expect("a pid while connected");
    assert!(common::process_alive(pid));

    let version = assert_echo_works(&server).await;
    eprintln!("server-everything (stdio) negotiated {version}");

    server.cleanup().await.expect("cleanup");
    assert_gone(pid).await;
    assert!(server.handle().pid().is_none());
}

/// `mcp-server-everything streamableHttp` on a free port, in its own process
/// group; the whole group is killed on drop (also when a test fails).
struct EverythingHttp {
    child: Child,
    url: String,
}

impl EverythingHttp {
    const READY: &'static str = "MCP Streamable HTTP Server listening on port";

    /// Starts the server, retrying on another port if it exits before it is
    /// ready (the free port may have been taken in between).
    fn start(interop: &Path) -> Self {
        let mut failures = Vec::new();
        for _ in 0..3 {
            match Self::try_start(interop) {
                Ok(server) => return server,
                Err(failure) => failures.push(failure),
            }
        }
        panic!(
            "server-everything (streamableHttp) did not start:\n{}",
            failures.join("\n---\n")
        );
    }

    fn try_start(interop: &Path) -> Result<Self, String> {
        // No port-0 support: take a free port from the OS and release it.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free local port")
            .port();
        let mut child = Command::new(bin(interop, "mcp-server-everything"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("spawn mcp-server-everything");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut server = Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };

        // Drained to the end so the server never blocks on a full pipe; the
        // ready line is signalled once.
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let (ready_tx, ready_rx) = mpsc::channel();
        let sink = Arc::clone(&seen);
        std::thread::spawn(move || {
            let mut ready_tx = Some(ready_tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains(Self::READY)
                    && let Some(tx) = ready_tx.take()
                {
                    let _ = tx.send(());
                }
                sink.lock().unwrap_or_else(|e| e.into_inner()).push(line);
            }
        });
        match ready_rx.recv_timeout(START_WAIT) {
            Ok(()) => Ok(server),
            Err(_) => {
                let status = server.child.try_wait().ok().flatten();
                server.kill();
                Err(format!(
                    "port {port}: no ready line within {START_WAIT:?} (exit status {status:?}); stderr:\n{}",
                    seen.lock().unwrap_or_else(|e| e.into_inner()).join("\n")
                ))
            }
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn kill(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            // The group id is the child's pid (process_group(0)).
            let group = Pid::from_raw(i32::try_from(self.child.id()).unwrap_or(i32::MAX));
            let _ = killpg(group, Signal::SIGKILL);
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        self.kill();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http_falls_back_to_initialize_and_echoes() {
    let Some(interop) = common::interop_dir() else {
        return;
    };
    let mut http = EverythingHttp::start(&interop);
    let server = McpServerStreamableHttp::url(&http.url)
        .with_name("everything-http")
        .with_startup_timeout(START_WAIT);
    server
        .connect()
        .await
        .expect("connect to server-everything over Streamable HTTP");
    assert!(
        server.handle().pid().is_none(),
        "an HTTP server has no child pid"
    );

    let version = assert_echo_works(&server).await;
    eprintln!("server-everything (Streamable HTTP) negotiated {version}");

    server.cleanup().await.expect("cleanup");
    let pid = http.pid();
    http.kill();
    assert!(
        !common::process_alive(pid),
        "server-everything (HTTP) process {pid} survived the kill"
    );
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("toolbridge-{label}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create a temp dir");
        // The filesystem server resolves symlinks (e.g. a /tmp link) before
        // checking that a path is inside an allowed directory.
        Self(dir.canonicalize().expect("canonical temp dir"))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_server_file_is_read_through_the_bridge() {
    let Some(interop) = common::interop_dir() else {
        return;
    };
    let dir = TempDir::new("fs-interop");
    let file = dir.0.join("notes.txt");
    let content = "toolbridge interop: line one\nline two ✓\n";
    std::fs::write(&file, content).expect("write the temp file");

    let server = McpServerStdio::command(
        bin(&interop, "mcp-server-filesystem"),
        [dir.0.to_string_lossy().into_owned()],
    )
    .with_name("fs")
    .with_startup_timeout(START_WAIT);
    server
        .connect()
        .await
        .expect("connect to server-filesystem");
    let pid = server.handle().pid().expect("a pid while connected");

    let all = server.list_tools().await.expect("tools/list");
    let names: Vec<&str> = all.iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.contains(&"read_text_file") && names.contains(&"read_file"),
        "unexpected filesystem tools: {names:?}"
    );

    let tools = mcp_server_to_function_tools(
        &server,
        BridgeOptions::default()
            .with_tool_filter(ToolFilter::allow(["read_text_file"]))
            .with_name_prefix("fs"),
    )
    .await
    .expect("bridge the filesystem tools");
    let exposed: Vec<&str> = tools.iter().map(|t| t.spec().name.as_str()).collect();
    assert_eq!(exposed, ["fs__read_text_file"]);

    let result = tools[0]
        .call(json!({"path": file.to_string_lossy()}))
        .await
        .expect("fs__read_text_file");
    assert!(
        !result.is_error,
        "read_text_file reported an error: {result:?}"
    );
    assert_eq!(result.text_content(), content);

    server.cleanup().await.expect("cleanup");
    assert_gone(pid).await;
}
