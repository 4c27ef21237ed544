//! The stdio server's child process: spawn it in its own process group with a
//! stripped environment, drain its stderr into a bounded tail, watch for its
//! exit, and tear the whole group down (stdin EOF → SIGTERM → SIGKILL).
//!
//! rmcp's child-process transport does not own these concerns (process
//! groups, stderr draining, bounded teardown), so toolbridge does.

use std::{
    collections::{BTreeMap, VecDeque},
    path::PathBuf,
    process::{ExitStatus, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use nix::{
    errno::Errno,
    sys::signal::{Signal, killpg},
    unistd::Pid,
};
use tokio::{
    io::{AsyncBufReadExt, BufReader},
    process::{ChildStderr, ChildStdin, ChildStdout, Command},
    sync::watch,
    time::Instant,
};

use super::{McpError, redact::Redactions};

/// How many bytes of a server's stderr are kept for error messages.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// How long `cleanup()` waits after closing stdin before sending SIGTERM.
const STDIN_EOF_GRACE: Duration = Duration::from_millis(500);

/// How long `cleanup()` waits after SIGTERM before sending SIGKILL.
pub const SIGTERM_GRACE: Duration = Duration::from_secs(5);

/// Environment variables a spawned server inherits from the parent by
/// default: what programs need to run and find things, never credentials.
/// `LC_*` and `XDG_*` variables are passed too.
///
/// Mirrors the default environment of the MCP TypeScript SDK's stdio client
/// (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`), plus locale, time
/// zone, temporary directory and CA-certificate locations (which `npx` and
/// `pip` need to reach their registries on machines with a custom CA).
pub const DEFAULT_INHERITED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "TMPDIR",
    "TZ",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
];

/// Whether `name` is passed to spawned servers by default.
pub fn is_inherited_by_default(name: &str) -> bool {
    DEFAULT_INHERITED_ENV.contains(&name) || name.starts_with("LC_") || name.starts_with("XDG_")
}

/// What a spawned server's environment is made of.
#[derive(Debug, Clone, Default)]
pub(crate) struct EnvSpec {
    /// Inherit the whole parent environment (explicit opt-in).
    pub inherit_all: bool,
    /// Extra parent variables to pass through by name.
    pub inherit: Vec<String>,
    /// Variables set explicitly for this server.
    pub vars: BTreeMap<String, String>,
}

/// Everything needed to start a stdio server.
#[derive(Debug, Clone)]
pub(crate) struct SpawnSpec {
    pub server: Arc<str>,
    pub command: String,
    pub args: Vec<String>,
    pub env: EnvSpec,
    pub cwd: Option<PathBuf>,
}

/// The last [`STDERR_TAIL_BYTES`] of a server's stderr.
#[derive(Debug, Default)]
pub(crate) struct StderrTail {
    bytes: Mutex<VecDeque<u8>>,
}

impl StderrTail {
    fn push(&self, line: &[u8]) {
        // A poisoned lock only means another push panicked mid-way; the
        // buffer is still a valid byte queue.
        let mut bytes = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        bytes.extend(line);
        let excess = bytes.len().saturating_sub(STDERR_TAIL_BYTES);
        bytes.drain(..excess);
    }

    /// The tail as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        let bytes = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        let (a, b) = bytes.as_slices();
        let mut all = Vec::with_capacity(bytes.len());
        all.extend_from_slice(a);
        all.extend_from_slice(b);
        String::from_utf8_lossy(&all).into_owned()
    }
}

/// A running (or exited) server process and its process group.
///
/// Dropping it without [`ChildProcess::terminate`] sends SIGKILL to the
/// group synchronously, so no server outlives its owner even when no async
/// runtime is left to run a cleanup.
#[derive(Debug)]
pub(crate) struct ChildProcess {
    server: Arc<str>,
    pgid: Pid,
    status: watch::Receiver<Option<ExitStatus>>,
    stderr_done: watch::Receiver<bool>,
    stderr: Arc<StderrTail>,
    terminated: AtomicBool,
}

impl ChildProcess {
    /// Spawns the server in a new process group, with piped stdio.
    ///
    /// The command is executed directly (argv, never through a shell).
    pub(crate) fn spawn(spec: &SpawnSpec) -> Result<(Self, ChildStdin, ChildStdout), McpError> {
        let mut command = Command::new(&spec.command);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(false);
        if !spec.env.inherit_all {
            command.env_clear();
            for (name, value) in std::env::vars_os() {
                let Some(name_str) = name.to_str() else {
                    continue;
                };
                if is_inherited_by_default(name_str)
                    || spec.env.inherit.iter().any(|n| n == name_str)
                {
                    command.env(&name, value);
                }
            }
        }
        command.envs(&spec.env.vars);
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(|source| McpError::Spawn {
            server: spec.server.to_string(),
            command: spec.command.clone(),
            source,
        })?;
        let (Some(stdin), Some(stdout), Some(stderr), Some(pid)) = (
            child.stdin.take(),
            child.stdout.take(),
            child.stderr.take(),
            child.id(),
        ) else {
            // All three were configured as pipes and the child was just
            // spawned, so this is unreachable in practice; still, no panic.
            let _ = child.start_kill();
            return Err(McpError::Spawn {
                server: spec.server.to_string(),
                command: spec.command.clone(),
                source: std::io::Error::other("child stdio pipes were not available"),
            });
        };
        let pgid = Pid::from_raw(pid as i32);
        let tail = Arc::new(StderrTail::default());
        let (status_tx, status_rx) = watch::channel(None);
        let (stderr_tx, stderr_rx) = watch::channel(false);
        let server = Arc::clone(&spec.server);

        tokio::spawn(async move {
            // `wait` only fails if the child was already reaped, which no one
            // else does; treat it as an unknown exit.
            if let Ok(status) = child.wait().await {
                let _ = status_tx.send(Some(status));
            }
        });
        // Values configured for this server are treated as secrets: a server
        // that echoes its environment on stderr must not put them in our
        // logs or error messages.
        let secrets = Redactions::new(spec.env.vars.values().cloned());
        tokio::spawn(drain_stderr(
            Arc::clone(&server),
            stderr,
            Arc::clone(&tail),
            stderr_tx,
            secrets,
        ));
        tracing::debug!(server = %server, pid, command = %spec.command, "spawned server process");
        Ok((
            Self {
                server,
                pgid,
                status: status_rx,
                stderr_done: stderr_rx,
                stderr: tail,
                terminated: AtomicBool::new(false),
            },
            stdin,
            stdout,
        ))
    }

    /// The process id of the server (also its process group id).
    pub(crate) fn pid(&self) -> u32 {
        self.pgid.as_raw() as u32
    }

    /// The exit status, if the process has exited.
    pub(crate) fn exit_status(&self) -> Option<ExitStatus> {
        *self.status.borrow()
    }

    /// Waits until the process has exited.
    pub(crate) async fn exited(&self) -> ExitStatus {
        let mut status = self.status.clone();
        loop {
            if let Some(exit) = *status.borrow_and_update() {
                return exit;
            }
            if status.changed().await.is_err() {
                // The reaper is gone without a status (runtime shutting
                // down); nothing more will come.
                std::future::pending::<()>().await;
            }
        }
    }

    /// A future that resolves once the process has exited, independent of
    /// `self` (for watcher tasks).
    pub(crate) fn exit_watcher(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut status = self.status.clone();
        async move {
            let _ = status.wait_for(Option::is_some).await;
        }
    }

    /// The stderr tail once the process has exited and its stderr is read to
    /// the end, waiting at most `limit` (a grandchild may hold stderr open).
    pub(crate) async fn stderr_after_exit(&self, limit: Duration) -> String {
        let mut done = self.stderr_done.clone();
        let _ = tokio::time::timeout(limit, done.wait_for(|d| *d)).await;
        self.stderr.text()
    }

    /// The stderr tail so far.
    pub(crate) fn stderr_now(&self) -> String {
        self.stderr.text()
    }

    /// Describes how the process ended, waiting at most `limit` for it to
    /// exit (its stdout may close a moment before the exit is reaped).
    pub(crate) async fn describe_exit(&self, limit: Duration) -> String {
        match tokio::time::timeout(limit, self.exited()).await {
            Ok(status) => describe_status(status),
            Err(_) => "it closed its stdout but is still running".to_owned(),
        }
    }

    /// Stops the whole process group: waits [`STDIN_EOF_GRACE`] for the
    /// server to exit on stdin EOF (the caller closes stdin first), then
    /// sends SIGTERM, waits up to [`SIGTERM_GRACE`], then SIGKILL, and waits
    /// for the server to be reaped. Idempotent; returns within about
    /// 0.5 s + 5 s + 1 s.
    pub(crate) async fn terminate(&self) {
        if self.terminated.swap(true, Ordering::SeqCst) {
            // Another caller is terminating or has terminated; wait for it.
            let _ = tokio::time::timeout(
                STDIN_EOF_GRACE + SIGTERM_GRACE + Duration::from_secs(2),
                self.exited(),
            )
            .await;
            return;
        }
        if self.wait_group_gone(STDIN_EOF_GRACE).await {
            return;
        }
        tracing::debug!(server = %self.server, "sending SIGTERM to the server's process group");
        self.signal_group(Signal::SIGTERM);
        if self.wait_group_gone(SIGTERM_GRACE).await {
            return;
        }
        tracing::warn!(
            server = %self.server,
            "server did not exit within {} s of SIGTERM; sending SIGKILL",
            SIGTERM_GRACE.as_secs()
        );
        self.signal_group(Signal::SIGKILL);
        self.wait_group_gone(Duration::from_secs(1)).await;
    }

    /// Waits until the leader is reaped and no process of the group is left,
    /// for at most `limit`. Returns whether that happened.
    async fn wait_group_gone(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            if self.exit_status().is_some() && !self.group_alive() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn group_alive(&self) -> bool {
        // Signal 0 checks for existence; ESRCH means the group is empty.
        // EPERM would mean the id now belongs to someone else's processes.
        !matches!(killpg(self.pgid, None), Err(Errno::ESRCH | Errno::EPERM))
    }

    fn signal_group(&self, signal: Signal) {
        if let Err(error) = killpg(self.pgid, signal)
            && error != Errno::ESRCH
        {
            tracing::warn!(server = %self.server, %error, ?signal, "could not signal the server's process group");
        }
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        if !self.terminated.load(Ordering::SeqCst) {
            // Synchronous and runtime-free: the group must not outlive us.
            self.signal_group(Signal::SIGKILL);
        }
    }
}

/// Describes an exit status for people: `exit code 3`, `killed by signal 9
/// (SIGKILL)`.
pub(crate) fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return format!("exit code {code}");
    }
    if let Some(signal) = status.signal() {
        return match Signal::try_from(signal) {
            Ok(name) => format!("killed by signal {signal} ({name})"),
            Err(_) => format!("killed by signal {signal}"),
        };
    }
    status.to_string()
}

/// Reads the server's stderr to the end: each line goes to `tracing` and to
/// the bounded tail. Draining keeps a chatty server from blocking on a full
/// pipe.
async fn drain_stderr(
    server: Arc<str>,
    stderr: ChildStderr,
    tail: Arc<StderrTail>,
    done: watch::Sender<bool>,
    secrets: Redactions,
) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if !secrets.is_empty() {
                    line = secrets.apply(&String::from_utf8_lossy(&line)).into_bytes();
                }
                tail.push(&line);
                let text = String::from_utf8_lossy(&line);
                tracing::info!(target: "toolbridge::server_stderr", server = %server, "{}", text.trim_end());
            }
        }
    }
    let _ = done.send(true);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_keeps_the_last_bytes() {
        let tail = StderrTail::default();
        for i in 0..20_000 {
            tail.push(format!("line {i:05}\n").as_bytes());
        }
        let text = tail.text();
        assert!(text.len() <= STDERR_TAIL_BYTES);
        assert!(text.ends_with("line 19999\n"));
    }

    #[test]
    fn secrets_are_not_inherited_by_default() {
        assert!(is_inherited_by_default("PATH"));
        assert!(is_inherited_by_default("LC_ALL"));
        assert!(!is_inherited_by_default("OPENAI_API_KEY"));
        assert!(!is_inherited_by_default("GITHUB_TOKEN"));
        assert!(!is_inherited_by_default("AWS_SECRET_ACCESS_KEY"));
    }
}
