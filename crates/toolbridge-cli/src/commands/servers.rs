//! `toolbridge servers`: connect every enabled server of the config and
//! show how each fared.

use std::io::{self, Write};

use anyhow::Context;

use crate::{
    args::ServersArgs,
    config_file::{self, Overrides},
    exit::Exit,
    hub::{self, Progress},
    output::{self, ServerRow},
};

/// Connects the servers in parallel (a progress line per server on stderr
/// as each is ready or fails), then prints the table: name, transport,
/// state, tools, startup time, and the first line of the error. Disabled
/// servers are listed as `disabled`.
///
/// Exit code 0 when every enabled server connected, 3 when any failed.
///
/// # Errors
/// Config errors and failures writing to stdout.
pub async fn run(args: &ServersArgs) -> anyhow::Result<Exit> {
    let (path, mut config) = config_file::load(args.config.as_deref())?;
    Overrides {
        startup_timeout: args.startup_timeout,
        call_timeout: None,
    }
    .apply(&mut config);
    if config.enabled_servers().next().is_none() {
        tracing::warn!(path = %path.display(), "no enabled servers in the config");
    }
    let (connections, outcomes) =
        hub::run(&config, Progress::EveryServer, |hub, outcomes| async move {
            Ok((hub.list_connections(), outcomes))
        })
        .await?;

    let rows: Vec<ServerRow> = config
        .servers
        .iter()
        .map(|server| {
            let outcome = outcomes.iter().find(|o| o.name == server.name);
            let connection = connections.iter().find(|c| c.name == server.name);
            ServerRow {
                name: server.name.clone(),
                transport: server.transport.kind().to_owned(),
                state: match (outcome, connection) {
                    (_, Some(connection)) => connection.state.to_string(),
                    (Some(_), None) => "failed".to_owned(),
                    (None, None) => "disabled".to_owned(),
                },
                tools: connection.map(|c| c.tool_count),
                startup: outcome.map(|o| o.startup),
                error: outcome
                    .and_then(hub::Outcome::error_text)
                    .or_else(|| connection.and_then(|c| c.last_error.clone()))
                    .map(|e| e.lines().next().unwrap_or_default().to_owned()),
            }
        })
        .collect();

    let mut out = io::stdout().lock();
    output::write_servers_table(&mut out, &rows)
        .and_then(|()| out.flush())
        .context("could not write the servers table to stdout")?;
    if hub::failed(&outcomes).is_empty() {
        Ok(Exit::Success)
    } else {
        Ok(Exit::Failure)
    }
}
