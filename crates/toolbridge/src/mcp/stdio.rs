//! [`McpServerStdio`]: a server run as a child process over stdio.

use std::{collections::BTreeMap, path::PathBuf, sync::Arc, time::Duration};

use rmcp::{
    model::ProtocolVersion,
    service::{ClientLifecycleMode, ClientServiceExt},
};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use toolbridge_core::BoxFuture;

use super::{
    McpError, McpServer, McpServerHandle, McpServerOptions,
    client::BridgeClient,
    describe,
    handle::handle_builders,
    line_transport::{LineTransport, StdoutNotes, shared_writer},
    multiplex::Multiplexer,
    process::{ChildProcess, EnvSpec, SpawnSpec, describe_status},
    redact::Redactions,
    session::{Link, Session},
};

/// How to start a stdio server: the seed's `MCPServerStdioParams`
/// (`command`, `args`, `env`, `cwd`), plus environment inheritance.
///
/// The command runs directly (argv), never through a shell. Its
/// environment is *not* the parent's: only
/// [`DEFAULT_INHERITED_ENV`](super::DEFAULT_INHERITED_ENV) (plus `LC_*`,
/// `XDG_*`), the names in `inherit_env`, and `env`, unless
/// `inherit_all_env` is set. A secret in the parent (an API key) thus never
/// reaches a server that was not given it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerStdioParams {
    /// The program, found on `PATH` unless it is a path.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables set for the server.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Further parent variables to pass through, by name (e.g. `HTTPS_PROXY`).
    #[serde(default)]
    pub inherit_env: Vec<String>,
    /// Pass the whole parent environment (explicit opt-in).
    #[serde(default)]
    pub inherit_all_env: bool,
    /// The working directory; the parent's when unset.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
}

/// An MCP server run as a child process, speaking newline-delimited
/// JSON-RPC on its stdin and stdout (MCP specification 2025-11-25,
/// "Transports" → "stdio").
///
/// toolbridge owns the child's lifecycle: it runs in its own process group;
/// its stderr is drained (the last 64 KiB are kept for errors, lines go to
/// `tracing` under the `toolbridge::server_stderr` target); `cleanup()`
/// closes stdin, waits briefly, sends SIGTERM to the group, waits 5 s, then
/// SIGKILL, and reaps it. Dropping the last handle without `cleanup()` kills
/// the group with SIGKILL.
///
/// Output that is not JSON-RPC on stdout (banners, log lines), `\r\n` line
/// ends and very long lines are tolerated.
///
/// # Examples
/// ```no_run
/// use toolbridge::mcp::{McpServer, McpServerStdio};
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = McpServerStdio::command("npx", ["-y", "@modelcontextprotocol/server-everything@2026.8.31"])
///     .with_name("everything")
///     .with_startup_timeout(std::time::Duration::from_secs(120));
/// server.connect().await?;
/// let result = server.call_tool("echo", serde_json::json!({"message": "hi"})).await?;
/// assert_eq!(result.text_content(), "Echo: hi");
/// server.cleanup().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct McpServerStdio {
    params: McpServerStdioParams,
    handle: McpServerHandle,
}

impl McpServerStdio {
    /// A server started from `params`, named after its command.
    pub fn new(params: McpServerStdioParams) -> Self {
        let name = default_name(&params.command);
        Self {
            params,
            handle: McpServerHandle::new(name, McpServerOptions::default()),
        }
    }

    /// A server started as `command args…`.
    pub fn command<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::new(McpServerStdioParams {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            ..McpServerStdioParams::default()
        })
    }

    handle_builders!();

    /// Sets a variable for the server.
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.params.env.insert(name.into(), value.into());
        self
    }

    /// Passes a parent variable through by name.
    pub fn with_inherited_env(mut self, name: impl Into<String>) -> Self {
        self.params.inherit_env.push(name.into());
        self
    }

    /// Sets the working directory.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.params.cwd = Some(cwd.into());
        self
    }

    /// How the server is started.
    pub fn params(&self) -> &McpServerStdioParams {
        &self.params
    }

    /// The process id of the running server (its process group id too).
    pub fn pid(&self) -> Option<u32> {
        self.handle.pid()
    }

    async fn start(&self) -> Result<Session, McpError> {
        if self.params.command.trim().is_empty() {
            return Err(McpError::InvalidConfig {
                server: self.handle.name().to_owned(),
                message: "the command is empty".to_owned(),
            });
        }
        if let Some(cwd) = &self.params.cwd
            && !cwd.is_dir()
        {
            return Err(McpError::InvalidConfig {
                server: self.handle.name().to_owned(),
                message: format!("the working directory {} is not a directory", cwd.display()),
            });
        }
        let deadline = Instant::now() + self.handle.options().startup_timeout;
        let auto = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        };
        match self.attempt(auto, deadline).await {
            Ok(session) => Ok(session),
            Err(Failure {
                error,
                retry_with_initialize: true,
            }) => {
                // A legacy server may answer `server/discover` in a way rmcp
                // does not read as "legacy"; start it again with the plain
                // `initialize` handshake.
                tracing::info!(
                    server = self.handle.name(), %error,
                    "discovery failed; retrying with the initialize handshake"
                );
                self.attempt(ClientLifecycleMode::Initialize, deadline)
                    .await
                    .map_err(|failure| failure.error)
            }
            Err(failure) => Err(failure.error),
        }
    }

    async fn attempt(
        &self,
        lifecycle: ClientLifecycleMode,
        deadline: Instant,
    ) -> Result<Session, Failure> {
        let server = self.handle.name_arc();
        let spec = SpawnSpec {
            server: Arc::clone(&server),
            command: self.params.command.clone(),
            args: self.params.args.clone(),
            env: EnvSpec {
                inherit_all: self.params.inherit_all_env,
                inherit: self.params.inherit_env.clone(),
                vars: self.params.env.clone(),
            },
            cwd: self.params.cwd.clone(),
        };
        let (child, stdin, stdout) = ChildProcess::spawn(&spec).map_err(Failure::fatal)?;
        let lost = CancellationToken::new();
        let stdin = shared_writer(stdin);
        let multiplexer = Arc::new(Multiplexer::default());
        let transport = LineTransport::new(
            Arc::clone(&server),
            stdout,
            Arc::clone(&stdin),
            lost.clone(),
        )
        .with_multiplexer(Arc::clone(&multiplexer))
        .with_redactions(Redactions::new(self.params.env.values().cloned()))
        .with_max_line_bytes(self.handle.options().max_message_bytes);
        let notes = transport.notes();
        let client = BridgeClient::new(Arc::clone(&server), self.handle.tools_changed_sender());

        enum Outcome<T> {
            Ready(T),
            Exited(std::process::ExitStatus),
            TimedOut,
        }
        let handshake = client.serve_with_lifecycle(transport, lifecycle);
        tokio::pin!(handshake);
        let outcome = tokio::select! {
            result = &mut handshake => Outcome::Ready(result),
            status = child.exited() => {
                // Let the transport read what the server printed before it
                // exited (a usage text explains the exit).
                let _ = tokio::time::timeout(Duration::from_millis(300), &mut handshake).await;
                Outcome::Exited(status)
            }
            () = tokio::time::sleep_until(deadline) => Outcome::TimedOut,
        };
        let mut retry_with_initialize = false;
        let error = match outcome {
            Outcome::Ready(Ok(running)) => {
                // A server whose leader exits while a grandchild keeps stdout
                // open must still count as gone.
                let exit = child.exit_watcher();
                let lost_on_exit = lost.clone();
                tokio::spawn(async move {
                    exit.await;
                    lost_on_exit.cancel();
                });
                return Ok(Session::new(
                    server,
                    running,
                    lost,
                    Link::Stdio {
                        child,
                        stdin,
                        multiplexer,
                        notes,
                    },
                    self.handle.tools_changed_sender(),
                    Arc::new(Redactions::new(self.params.env.values().cloned())),
                ));
            }
            Outcome::Ready(Err(error)) => {
                match tokio::time::timeout(Duration::from_secs(1), child.exited()).await {
                    Ok(status) => exited_during_startup(&server, &child, &notes, status).await,
                    Err(_) => {
                        // Only a server that answered (oddly) is worth a
                        // second start; one that closed its stdout or sent
                        // an oversized line would fail the same way again.
                        retry_with_initialize =
                            notes.broken().is_none() && describe::worth_initialize_retry(&error);
                        let mut message = notes
                            .broken()
                            .map_or_else(|| describe::initialize(&error), str::to_owned);
                        let stdout = notes.summary();
                        if !stdout.is_empty() {
                            message.push_str("; on stdout it printed ");
                            message.push_str(&stdout);
                        }
                        McpError::Handshake {
                            server: server.to_string(),
                            message,
                            stderr: child.stderr_now(),
                        }
                    }
                }
            }
            Outcome::Exited(status) => exited_during_startup(&server, &child, &notes, status).await,
            Outcome::TimedOut => McpError::StartupTimeout {
                server: server.to_string(),
                after: self.handle.options().startup_timeout,
                stdout: notes.summary(),
                stderr: child.stderr_now(),
            },
        };
        stdin.lock().await.take();
        child.terminate().await;
        Err(Failure {
            error,
            retry_with_initialize,
        })
    }
}

/// A failed start, and whether starting again with the plain `initialize`
/// handshake may help.
struct Failure {
    error: McpError,
    retry_with_initialize: bool,
}

impl Failure {
    fn fatal(error: McpError) -> Self {
        Self {
            error,
            retry_with_initialize: false,
        }
    }
}

async fn exited_during_startup(
    server: &str,
    child: &ChildProcess,
    notes: &StdoutNotes,
    status: std::process::ExitStatus,
) -> McpError {
    McpError::ExitedDuringStartup {
        server: server.to_owned(),
        status: describe_status(status),
        stdout: notes.summary(),
        stderr: child.stderr_after_exit(Duration::from_millis(500)).await,
    }
}

/// The file name of the command, e.g. `npx` for `/usr/bin/npx`.
fn default_name(command: &str) -> String {
    std::path::Path::new(command)
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty())
        .unwrap_or("stdio")
        .to_owned()
}

impl McpServer for McpServerStdio {
    fn handle(&self) -> &McpServerHandle {
        &self.handle
    }

    fn connect(&self) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(self.handle.connect_with(|| self.start()))
    }
}
