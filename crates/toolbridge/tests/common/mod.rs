//! Shared helpers for integration tests: locate (and if needed build) the
//! fixture server binary, and the npm interop servers.
#![allow(dead_code)]

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex, OnceLock},
    time::Duration,
};

use tokio::time::Instant;

use toolbridge::mcp::McpServerStdio;

/// The path of the `toolbridge-fixture` binary of the current profile,
/// building it once if it is not there yet.
pub fn fixture_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        // target/<profile>/deps/<test-exe> → target/<profile>
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile> directory")
            .to_path_buf();
        let bin = profile_dir.join("toolbridge-fixture");
        if !bin.exists() || fixture_sources_newer_than(&bin) {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
            let mut build = Command::new(cargo);
            build.args([
                "build",
                "-p",
                "toolbridge-fixture",
                "--bin",
                "toolbridge-fixture",
            ]);
            if profile_dir.file_name().is_some_and(|n| n == "release") {
                build.arg("--release");
            }
            let status = build.status().expect("run cargo build for the fixture");
            assert!(status.success(), "building toolbridge-fixture failed");
        }
        bin
    })
    .clone()
}

/// Whether a source file of the fixture crate is newer than `bin` (a test
/// run of one package does not rebuild another package's binary).
fn fixture_sources_newer_than(bin: &Path) -> bool {
    let Ok(built) = bin.metadata().and_then(|m| m.modified()) else {
        return true;
    };
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolbridge-fixture");
    let mut stack = vec![crate_dir.join("src"), crate_dir.join("Cargo.toml")];
    while let Some(path) = stack.pop() {
        let Ok(meta) = path.metadata() else { continue };
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.flatten().map(|e| e.path()));
            }
        } else if meta.modified().is_ok_and(|m| m > built) {
            return true;
        }
    }
    false
}

/// A stdio server running the fixture with `args`, named `fixture`.
pub fn fixture(args: &[&str]) -> McpServerStdio {
    McpServerStdio::command(fixture_bin().to_string_lossy(), args.iter().copied())
        .with_name("fixture")
}

/// `interop/node_modules`, from `TOOLBRIDGE_INTEROP_DIR` or next to the
/// workspace. `None` (the test should skip) when it is missing, unless
/// `TOOLBRIDGE_INTEROP_REQUIRED=1`, where a missing install panics.
pub fn interop_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLBRIDGE_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../interop/node_modules")
        });
    if dir.join(".bin").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("TOOLBRIDGE_INTEROP_REQUIRED").as_deref() != Ok("1"),
        "interop servers are required but missing at {}; run `npm ci --prefix interop`",
        dir.display()
    );
    eprintln!(
        "skipping: interop servers not installed at {} (run `npm ci --prefix interop`)",
        dir.display()
    );
    None
}

/// Whether a process with this id exists (zombies count as gone).
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state is the field after the parenthesised command name.
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next());
            state != Some("Z") && state != Some("X")
        }
        Err(_) => false,
    }
}

/// Hang guard for waiting on the fixture's stderr; never a timing assertion.
const STDERR_WAIT: Duration = Duration::from_secs(10);

/// The fixture serving Streamable HTTP, with its stderr collected line by
/// line; killed on drop.
pub struct HttpFixture {
    child: Child,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl HttpFixture {
    /// Starts the fixture with `--http 127.0.0.1:0` and `args`.
    pub fn start(args: &[&str]) -> Self {
        let mut child = Command::new(fixture_bin())
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the fixture");
        // Drained from the start so a chatty fixture never blocks on a full pipe.
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("read the fixture's first stdout line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line from the fixture: {line:?}"))
            .to_owned();
        Self { child, url, stderr }
    }

    /// Waits (bounded) until the fixture has written `line` to stderr.
    pub async fn wait_for_stderr_line(&self, line: &str) {
        let deadline = Instant::now() + STDERR_WAIT;
        loop {
            if self.stderr.lock().unwrap().iter().any(|l| l == line) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the fixture did not write {line:?} within {STDERR_WAIT:?}; its stderr:\n{}",
                self.stderr.lock().unwrap().join("\n")
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl HttpFixture {
    /// Kills the fixture now (a server that dies).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
