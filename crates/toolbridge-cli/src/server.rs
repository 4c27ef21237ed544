//! The server's lifecycle for one command: build it from the
//! [`ServerConfig`], connect (with a spinner), run the command's work, and
//! always clean up, also on errors and on SIGINT / SIGTERM, so no child
//! process outlives the command.

use std::{fmt, future::Future};

use toolbridge::mcp::{McpServer, McpServerStdio, McpServerStreamableHttp};

use crate::{
    args::{ServerConfig, Transport},
    progress::Spinner,
};

/// Builds the (not yet connected) server.
pub fn build(config: &ServerConfig) -> Box<dyn McpServer> {
    match &config.transport {
        Transport::Stdio(params) => {
            let mut server =
                McpServerStdio::new(params.clone()).with_startup_timeout(config.startup_timeout);
            if let Some(name) = &config.name {
                server = server.with_name(name.clone());
            }
            Box::new(server)
        }
        Transport::Http(params) => {
            let mut server = McpServerStreamableHttp::new(params.clone())
                .with_startup_timeout(config.startup_timeout);
            if let Some(name) = &config.name {
                server = server.with_name(name.clone());
            }
            Box::new(server)
        }
    }
}

/// What the spinner says while the server starts.
fn starting_message(config: &ServerConfig) -> String {
    match &config.transport {
        Transport::Stdio(params) => format!("starting `{}`", params.command),
        Transport::Http(params) => format!("connecting to {}", params.url),
    }
}

/// Connects `server`, runs `work`, and cleans the server up whatever
/// happened. A SIGINT or SIGTERM stops the work (or the start-up) and
/// becomes an [`Interrupted`] error once the server is cleaned up.
///
/// # Errors
/// The connection error ([`toolbridge::mcp::McpError`]), `work`'s error, or
/// [`Interrupted`].
pub async fn run<T>(
    server: &dyn McpServer,
    config: &ServerConfig,
    work: impl Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    let connect_then_work = async {
        {
            let _spinner = Spinner::start(starting_message(config));
            server.connect().await?;
        }
        tracing::debug!(
            server = server.name(),
            protocol = server.handle().protocol_version().as_deref().unwrap_or("?"),
            "connected"
        );
        work.await
    };
    let outcome = tokio::select! {
        outcome = connect_then_work => outcome,
        interrupted = interrupted() => Err(interrupted.into()),
    };
    if let Err(error) = server.cleanup().await {
        tracing::warn!(server = server.name(), %error, "cleanup failed");
    }
    outcome
}

/// The run was stopped by a signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted {
    /// The signal's name, e.g. `SIGINT`.
    signal: &'static str,
    /// The signal's number.
    number: u8,
}

impl Interrupted {
    /// The conventional exit code: 128 + the signal's number.
    pub fn exit_code(self) -> u8 {
        128 + self.number
    }
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "interrupted by {}; the server was shut down",
            self.signal
        )
    }
}

impl std::error::Error for Interrupted {}

/// Resolves when SIGINT or SIGTERM arrives; never when the handlers cannot
/// be installed (the default action, ending the process, then applies).
pub async fn interrupted() -> Interrupted {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        tracing::warn!("could not install signal handlers; Ctrl-C may leave the server running");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => Interrupted { signal: "SIGINT", number: 2 },
        _ = term.recv() => Interrupted { signal: "SIGTERM", number: 15 },
    }
}
