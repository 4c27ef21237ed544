//! The hub's lifecycle for one command in hub mode: connect every enabled
//! server of the config in parallel (reporting each as it becomes ready or
//! fails), run the command's work, and always close the hub, also on
//! errors and on SIGINT / SIGTERM, so no server process outlives the
//! command.

use std::{
    future::Future,
    time::{Duration, Instant},
};

use futures::stream::{FuturesUnordered, StreamExt};
use toolbridge::{
    audit::AuditLog,
    config::{AuditConfig, HubConfig},
    hub::{Hub, HubError},
    policy::Trust,
};

use crate::{
    exit::format_error_chain,
    progress::{Spinner, write_stderr},
    server::interrupted,
};

/// How one server's connect ended.
#[derive(Debug)]
pub struct Outcome {
    /// The server's name.
    pub name: String,
    /// `stdio`, `http` or `sse`.
    pub transport: &'static str,
    /// From the start of the connects until this one was ready or failed.
    pub startup: Duration,
    /// Whether it connected, and why not.
    pub result: Result<(), HubError>,
}

impl Outcome {
    /// The error's whole cause chain on one line per cause, if it failed.
    pub fn error_text(&self) -> Option<String> {
        self.result.as_ref().err().map(|e| format_error_chain(e))
    }
}

/// The names of the servers that failed to connect.
pub fn failed(outcomes: &[Outcome]) -> Vec<String> {
    outcomes
        .iter()
        .filter(|o| o.result.is_err())
        .map(|o| o.name.clone())
        .collect()
}

/// What is said on stderr while the servers connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A line per server as it becomes ready or fails (`servers`).
    EveryServer,
    /// A warning per server that fails; nothing on success (`tools`,
    /// `call`, whose stderr stays empty when all is well).
    FailuresOnly,
}

/// Connects the enabled servers of `config` (the user's own file, so they
/// are trusted: no command policy), runs `work` with the hub and the
/// outcomes (in config order), and closes the hub whatever happened. A
/// SIGINT or SIGTERM stops the connects or the work and becomes an
/// [`crate::server::Interrupted`] error once the hub is closed.
///
/// # Errors
/// `work`'s error, or [`crate::server::Interrupted`]. A server that fails
/// to connect is not an error here; its outcome says so.
pub async fn run<T, F, Fut>(config: &HubConfig, progress: Progress, work: F) -> anyhow::Result<T>
where
    F: FnOnce(Hub, Vec<Outcome>) -> Fut,
    Fut: Future<Output = anyhow::Result<T>>,
{
    let hub = Hub::new();
    let audit = open_audit(config);
    hub.record_audit(audit.clone());
    let connect_then_work = async {
        let outcomes = connect_all(&hub, config, progress).await;
        work(hub.clone(), outcomes).await
    };
    let outcome = tokio::select! {
        outcome = connect_then_work => outcome,
        interrupted = interrupted() => Err(interrupted.into()),
    };
    hub.close().await;
    if let Err(error) = audit.flush(Duration::from_secs(2)) {
        tracing::warn!(%error, "could not flush the audit log");
    }
    outcome
}

/// The audit log the config asks for (the default SQLite database in the
/// user's data directory when it says nothing). A log that cannot be
/// opened is reported and left out: it never stops the command.
fn open_audit(config: &HubConfig) -> AuditLog {
    let sink = config
        .audit
        .clone()
        .unwrap_or(AuditConfig::Sqlite { path: None });
    match AuditLog::open(&sink) {
        Ok(log) => log,
        Err(error) => {
            tracing::warn!(%error, "audit log unavailable; continuing without it");
            AuditLog::disabled()
        }
    }
}

/// Connects every enabled server in parallel, reporting each as it
/// finishes; the outcomes come back in config order.
///
/// Each connect is awaited on its own (rather than through
/// `Hub::connect_all`) so that its progress line appears the moment it is
/// done and its startup time is its own.
async fn connect_all(hub: &Hub, config: &HubConfig, progress: Progress) -> Vec<Outcome> {
    let servers: Vec<_> = config.enabled_servers().collect();
    let _spinner = (!servers.is_empty()).then(|| {
        Spinner::start(format!(
            "connecting {} server{}",
            servers.len(),
            if servers.len() == 1 { "" } else { "s" }
        ))
    });
    let started = Instant::now();
    let mut pending: FuturesUnordered<_> = servers
        .iter()
        .enumerate()
        .map(|(index, server)| {
            let server = (*server).clone();
            async move {
                let result = hub.connect_with_trust(server, Trust::Local).await;
                (index, result, started.elapsed())
            }
        })
        .collect();
    let mut slots: Vec<Option<Outcome>> = servers.iter().map(|_| None).collect();
    while let Some((index, result, startup)) = pending.next().await {
        let server = servers[index];
        let outcome = Outcome {
            name: server.name.clone(),
            transport: server.transport.kind(),
            startup,
            result,
        };
        report(hub, &outcome, progress);
        slots[index] = Some(outcome);
    }
    slots.into_iter().flatten().collect()
}

/// Writes the progress line for one finished connect.
fn report(hub: &Hub, outcome: &Outcome, progress: Progress) {
    let ms = outcome.startup.as_millis();
    let line = match (&outcome.result, progress) {
        (Ok(()), Progress::FailuresOnly) => return,
        (Ok(()), Progress::EveryServer) => {
            let tools = hub
                .list_connections()
                .into_iter()
                .find(|c| c.name == outcome.name)
                .map_or(0, |c| c.tool_count);
            format!(
                "ready   {} ({}, {tools} tool{}, {ms} ms)\n",
                outcome.name,
                outcome.transport,
                if tools == 1 { "" } else { "s" }
            )
        }
        (Err(error), Progress::EveryServer) => format!(
            "failed  {} ({}, {ms} ms): {}\n",
            outcome.name,
            outcome.transport,
            format_error_chain(error)
        ),
        (Err(error), Progress::FailuresOnly) => format!(
            "warning: server '{}' did not connect: {}\n",
            outcome.name,
            format_error_chain(error)
        ),
    };
    // Progress is a courtesy: if stderr is gone, the table and the exit
    // code still tell.
    let _ = write_stderr(line.as_bytes());
}
