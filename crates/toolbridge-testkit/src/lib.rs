//! Test and benchmark helpers shared by the toolbridge workspace: find the
//! `toolbridge-fixture` binary of the current profile (building it when it
//! is missing or older than its sources), run it over Streamable HTTP, and
//! check whether a process is still alive.

// Test helpers: a failed setup step is a test failure, so panicking with a
// clear message is the right behaviour here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex, OnceLock},
    time::Duration,
};

use tokio::time::Instant;

/// The path of the `toolbridge-fixture` binary of the current profile
/// (`target/<profile>/`, found from the running test or bench executable),
/// building it first when it is missing or older than its sources.
///
/// # Errors
/// A description when the target directory cannot be found or the build
/// fails.
pub fn try_fixture_bin() -> Result<PathBuf, String> {
    // target/<profile>/deps/<test-exe> → target/<profile>
    let exe = std::env::current_exe().map_err(|e| format!("test executable path: {e}"))?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("cannot find target/<profile> from the test executable")?
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
        let status = build
            .status()
            .map_err(|e| format!("run cargo build for the fixture: {e}"))?;
        if !status.success() {
            return Err(format!("building toolbridge-fixture failed ({status})"));
        }
    }
    Ok(bin)
}

/// [`try_fixture_bin`], once per process, panicking on failure (for tests).
pub fn fixture_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| try_fixture_bin().unwrap_or_else(|e| panic!("{e}")))
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

/// Whether a process with this id exists (zombies count as gone).
///
/// # Examples
/// ```
/// assert!(toolbridge_testkit::process_alive(std::process::id()));
/// assert!(!toolbridge_testkit::process_alive(u32::MAX));
/// ```
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
