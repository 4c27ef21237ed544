//! Reading the log back: [`AuditQuery`], [`query`] and [`render_table`]
//! (what `toolbridge audit` shows).

use std::{
    collections::VecDeque,
    fmt::Write as _,
    fs::File,
    io::{self, BufRead, BufReader},
    path::Path,
    time::Duration,
};

use rusqlite::{Connection, OpenFlags, types::Value};

use super::{
    AuditError, AuditEvent, AuditEventKind, CallOutcome, DisconnectReason,
    log::default_sqlite_path, sink::BUSY_TIMEOUT, time::Timestamp,
};
use crate::config::AuditConfig;

/// Which events to read back; every field narrows the result, `None`
/// means no restriction. Mirrors `toolbridge audit [--server S] [--tool T]
/// [--since 1h]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditQuery {
    /// Only events about this server (exact name); drops `audit_dropped`.
    pub server: Option<String>,
    /// Only `mcp_tool_call` events for this tool (its name on the server,
    /// exact).
    pub tool: Option<String>,
    /// Only events at most this long ago (see
    /// [`parse_since`](super::parse_since)).
    pub since: Option<Duration>,
    /// At most this many events: the newest ones.
    pub limit: Option<usize>,
}

/// The events of the log `config` names that match `q`, oldest first
/// (newest last), in the order they were written.
///
/// `Sqlite { path: None }` reads [`default_sqlite_path`].
///
/// # Errors
/// [`AuditError::NotQueryable`] for the `stdout` and `off` sinks, and as
/// [`query_sqlite`] / [`query_jsonl`].
pub fn query(config: &AuditConfig, q: &AuditQuery) -> Result<Vec<AuditEvent>, AuditError> {
    match config {
        AuditConfig::Sqlite { path: Some(path) } => query_sqlite(path, q),
        AuditConfig::Sqlite { path: None } => query_sqlite(&default_sqlite_path()?, q),
        AuditConfig::Jsonl { path } => query_jsonl(path, q),
        AuditConfig::Stdout => Err(AuditError::NotQueryable { sink: "stdout" }),
        AuditConfig::Off => Err(AuditError::NotQueryable { sink: "off" }),
    }
}

/// [`query`] on the SQLite database at `path`, opened read-only (it may
/// be written meanwhile). Rows whose JSON no longer parses are skipped.
///
/// # Errors
/// [`AuditError::NotFound`] when there is no file at `path`;
/// [`AuditError::Sqlite`] when it cannot be opened or read.
pub fn query_sqlite(path: &Path, q: &AuditQuery) -> Result<Vec<AuditEvent>, AuditError> {
    if !path.exists() {
        return Err(AuditError::NotFound {
            path: path.to_owned(),
        });
    }
    let err = |operation| {
        move |source| AuditError::Sqlite {
            path: path.to_owned(),
            operation,
            source,
        }
    };
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(err("open read-only"))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(err("set busy timeout"))?;

    let mut sql = String::from("SELECT id, json FROM events WHERE 1 = 1");
    let mut params: Vec<Value> = Vec::new();
    let mut add = |clause: &str, value: String| {
        params.push(Value::Text(value));
        let _ = write!(sql, " AND {clause} ?{}", params.len());
    };
    if let Some(server) = &q.server {
        add("server =", server.clone());
    }
    if let Some(tool) = &q.tool {
        add("tool =", tool.clone());
    }
    if let Some(since) = q.since {
        add("ts >=", cutoff(since).to_string());
    }
    // Newest first so LIMIT keeps the newest; reversed below. A negative
    // LIMIT is "no limit" in SQLite.
    let limit = q.limit.and_then(|l| i64::try_from(l).ok()).unwrap_or(-1);
    params.push(Value::Integer(limit));
    let _ = write!(sql, " ORDER BY id DESC LIMIT ?{}", params.len());

    let mut stmt = conn.prepare(&sql).map_err(err("prepare query"))?;
    let rows = stmt
        .query_map(rusqlite::params_from_iter(params), |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .map_err(err("query"))?;
    let mut events = Vec::new();
    for row in rows {
        let (id, json) = row.map_err(err("read row"))?;
        match serde_json::from_str(&json) {
            Ok(event) => events.push(event),
            Err(error) => {
                tracing::warn!(path = %path.display(), id, %error, "skipping unreadable audit row")
            }
        }
    }
    events.reverse();
    Ok(events)
}

/// [`query`] on the JSON lines file at `path`. Lines that do not parse
/// (a line cut short by a crash, foreign text) are skipped.
///
/// # Errors
/// [`AuditError::NotFound`] when there is no file at `path`;
/// [`AuditError::Io`] when it cannot be read.
pub fn query_jsonl(path: &Path, q: &AuditQuery) -> Result<Vec<AuditEvent>, AuditError> {
    let io_err = |operation| {
        move |source| AuditError::Io {
            path: path.to_owned(),
            operation,
            source,
        }
    };
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(AuditError::NotFound {
                path: path.to_owned(),
            });
        }
        Err(e) => return Err(io_err("open")(e)),
    };
    let since = q.since.map(cutoff);
    let limit = q.limit.unwrap_or(usize::MAX);
    let mut kept = VecDeque::new();
    if limit == 0 {
        return Ok(Vec::new());
    }
    for line in BufReader::new(file).lines() {
        let line = line.map_err(io_err("read"))?;
        let Ok(event) = serde_json::from_str::<AuditEvent>(&line) else {
            continue;
        };
        let matches = q
            .server
            .as_deref()
            .is_none_or(|s| event.server() == Some(s))
            && q.tool.as_deref().is_none_or(|t| event.tool() == Some(t))
            && since.is_none_or(|cut| event.timestamp >= cut);
        if matches {
            if kept.len() == limit {
                kept.pop_front();
            }
            kept.push_back(event);
        }
    }
    Ok(kept.into())
}

fn cutoff(since: Duration) -> Timestamp {
    Timestamp::now().saturating_sub(since)
}

/// `events` as human-readable text, one line per event: timestamp, kind,
/// server, then the kind's details, e.g.
///
/// ```text
/// 2026-05-01T12:34:56.789Z  mcp_connect     git  stdio, 12 tools
/// 2026-05-01T12:34:57.001Z  mcp_tool_call   git  status ok 41 ms args=[repo_path]
/// 2026-05-01T12:35:10.500Z  mcp_disconnect  git  process_exit (exit code 1): killed
/// ```
///
/// Columns are padded to the widest entry. Control characters in names and
/// texts are shown as spaces, so that a server cannot rewrite the
/// terminal. Empty input gives an empty string.
pub fn render_table(events: &[AuditEvent]) -> String {
    let server_width = events
        .iter()
        .map(|e| e.server().unwrap_or("-").chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for event in events {
        let server = clean(event.server().unwrap_or("-"));
        let line = format!(
            "{}  {:<14}  {server:<server_width$}  {}",
            event.timestamp,
            event.kind_name(),
            clean(&details(&event.kind)),
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn details(kind: &AuditEventKind) -> String {
    match kind {
        AuditEventKind::McpConnect {
            transport,
            tool_count,
            ..
        } => format!("{transport}, {tool_count} tools"),
        AuditEventKind::McpDisconnect {
            reason,
            exit_code,
            detail,
            ..
        } => {
            let mut s = match reason {
                DisconnectReason::Requested => "requested",
                DisconnectReason::ProcessExit => "process_exit",
                DisconnectReason::Error => "error",
            }
            .to_owned();
            if let Some(code) = exit_code {
                let _ = write!(s, " (exit code {code})");
            }
            if let Some(detail) = detail {
                let _ = write!(s, ": {detail}");
            }
            s
        }
        AuditEventKind::McpRestart {
            attempt, reason, ..
        } => format!("attempt {attempt}: {reason}"),
        AuditEventKind::McpToolCall {
            tool,
            duration_ms,
            outcome,
            argument_names,
            error,
            ..
        } => {
            let outcome = match outcome {
                CallOutcome::Ok => "ok",
                CallOutcome::ToolError => "tool_error",
                CallOutcome::Error => "error",
                CallOutcome::Timeout => "timeout",
            };
            let mut s = format!(
                "{tool} {outcome} {duration_ms} ms args=[{}]",
                argument_names.join(",")
            );
            if let Some(error) = error {
                let _ = write!(s, ": {error}");
            }
            s
        }
        AuditEventKind::AuditDropped { count } => format!("{count} events dropped (queue full)"),
    }
}

fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_one_aligned_line_per_event_without_control_characters() {
        let at = |ms| Timestamp::from_unix_millis(ms);
        let events = [
            AuditEvent {
                timestamp: at(0),
                kind: AuditEventKind::McpConnect {
                    server: "git".into(),
                    transport: "stdio".into(),
                    tool_count: 12,
                },
            },
            AuditEvent {
                timestamp: at(1),
                kind: AuditEventKind::McpToolCall {
                    server: "filesystem".into(),
                    tool: "read_file".into(),
                    duration_ms: 41,
                    outcome: CallOutcome::Timeout,
                    argument_names: vec!["path".into(), "tail".into()],
                    error: Some("no answer\n\x1b[2Jwithin 30 s".into()),
                },
            },
            AuditEvent {
                timestamp: at(2),
                kind: AuditEventKind::AuditDropped { count: 7 },
            },
        ];
        let table = render_table(&events);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3, "{table}");
        assert_eq!(
            lines[0],
            "1970-01-01T00:00:00.000Z  mcp_connect     git         stdio, 12 tools"
        );
        assert_eq!(
            lines[1],
            "1970-01-01T00:00:00.001Z  mcp_tool_call   filesystem  read_file timeout 41 ms \
             args=[path,tail]: no answer  [2Jwithin 30 s"
        );
        assert!(lines[2].ends_with("-           7 events dropped (queue full)"));
        assert_eq!(render_table(&[]), "");
    }
}
