//! `toolbridge audit`: read back the audit log the config names.

use std::io::{self, Write};

use anyhow::Context;
use toolbridge::{
    audit::{self, AuditEvent, AuditQuery},
    config::{AuditConfig, HubConfig},
};

use crate::{args::AuditArgs, config_file, exit::Exit};

/// Queries the log and prints the matching events, oldest first: a table,
/// or with `--json` one JSON object per line (the log's own JSON shape).
///
/// The log is the config's `audit` setting; with no `audit` setting, or no
/// config file at all (none given, none found), the default SQLite
/// database.
///
/// # Errors
/// Config errors (exit 2), a sink that cannot be queried (`stdout`,
/// `off`: exit 2), a log that does not exist or cannot be read (exit 3),
/// and failures writing to stdout.
pub fn run(args: &AuditArgs) -> anyhow::Result<Exit> {
    let audit_config = audit_config(args)?;
    let query = AuditQuery {
        server: args.server.clone(),
        tool: args.tool.clone(),
        since: args.since,
        limit: args.limit,
    };
    let events = audit::query(&audit_config, &query)?;
    let mut out = io::stdout().lock();
    write_events(&mut out, &events, args.json)
        .and_then(|()| out.flush())
        .context("could not write the audit events to stdout")?;
    if events.is_empty() && !args.json {
        tracing::warn!("no audit events match");
    }
    Ok(Exit::Success)
}

/// The audit setting of the given or discovered config file; the default
/// SQLite database when there is none.
fn audit_config(args: &AuditArgs) -> anyhow::Result<AuditConfig> {
    let path = match &args.config {
        Some(path) => Some(path.clone()),
        None => config_file::locate(None).ok(),
    };
    let audit = match path {
        // Only the audit setting matters here: a server's secret that is
        // not set in this shell must not stop reading the log.
        Some(path) => {
            HubConfig::load_with(&path, &|name| Some(std::env::var(name).unwrap_or_default()))?
                .audit
        }
        None => None,
    };
    Ok(audit.unwrap_or(AuditConfig::Sqlite { path: None }))
}

fn write_events(out: &mut impl Write, events: &[AuditEvent], json: bool) -> io::Result<()> {
    if json {
        for event in events {
            serde_json::to_writer(&mut *out, event)?;
            writeln!(out)?;
        }
        Ok(())
    } else {
        write!(out, "{}", audit::render_table(events))
    }
}
