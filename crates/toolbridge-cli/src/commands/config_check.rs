//! `toolbridge config check`: load a config file, validate it, and show
//! its servers as resolved, secrets masked.

use std::io::{self, Write};

use anyhow::Context;
use toolbridge::{
    audit::default_sqlite_path,
    config::{AuditConfig, HubConfig, TransportConfig},
};

use crate::{args::ConfigCheckArgs, config_file, exit::Exit};

/// Loads the file and prints a summary line, the hub-wide settings, and
/// each server (all of them, disabled ones too) with
/// [`toolbridge::config::ServerConfig::describe_masked`]: env and header
/// values never appear.
///
/// # Errors
/// The [`toolbridge::config::ConfigError`] (exit 2; it names the file,
/// line, server and variable), and failures writing to stdout.
pub fn run(args: &ConfigCheckArgs) -> anyhow::Result<Exit> {
    let (path, config) = config_file::load(args.file.as_deref())?;
    let mut out = io::stdout().lock();
    write_report(&mut out, &path.display().to_string(), &config)
        .and_then(|()| out.flush())
        .context("could not write the report to stdout")?;
    Ok(Exit::Success)
}

fn write_report(out: &mut impl Write, path: &str, config: &HubConfig) -> io::Result<()> {
    let total = config.servers.len();
    let enabled = config.enabled_servers().count();
    writeln!(
        out,
        "{path}: valid, {total} server{}, {enabled} enabled",
        if total == 1 { "" } else { "s" }
    )?;
    if let Some(allowlist) = &config.command_allowlist {
        writeln!(out, "command allowlist: {}", allowlist.join(", "))?;
    }
    writeln!(out, "audit log: {}", describe_audit(config.audit.as_ref()))?;
    for server in &config.servers {
        writeln!(out)?;
        write!(out, "{}", server.describe_masked())?;
        if matches!(server.transport, TransportConfig::Sse { .. }) {
            writeln!(
                out,
                "  note: the hub cannot connect legacy sse servers yet; use \"http\" if the server supports Streamable HTTP"
            )?;
        }
    }
    Ok(())
}

/// Where the audit log goes, in words.
fn describe_audit(audit: Option<&AuditConfig>) -> String {
    let default_sqlite = || match default_sqlite_path() {
        Ok(path) => format!("sqlite at {} (default)", path.display()),
        Err(error) => format!("sqlite at the default path, which is unusable: {error}"),
    };
    match audit {
        None | Some(AuditConfig::Sqlite { path: None }) => default_sqlite(),
        Some(AuditConfig::Sqlite { path: Some(path) }) => format!("sqlite at {}", path.display()),
        Some(AuditConfig::Jsonl { path }) => format!("JSON lines appended to {}", path.display()),
        Some(AuditConfig::Stdout) => "JSON lines on stdout".to_owned(),
        Some(AuditConfig::Off) => "off".to_owned(),
        Some(other) => format!("{other:?}"),
    }
}
