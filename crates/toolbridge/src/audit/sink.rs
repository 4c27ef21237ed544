//! Where the background writer puts events: SQLite, a JSON lines file, or
//! stdout.

use std::{
    fs::{self, File, OpenOptions},
    io::{self, BufWriter, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
    time::Duration,
};

use rusqlite::{Connection, params};

use super::{AuditError, AuditEvent};

/// The SQLite schema, version 1 (`PRAGMA user_version`). `ts` is the
/// RFC 3339 timestamp text, which sorts in time order; `json` is the whole
/// event in its documented JSON shape; the other columns repeat fields of
/// it for filtering.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    kind TEXT NOT NULL,
    server TEXT,
    tool TEXT,
    outcome TEXT,
    duration_ms INTEGER,
    json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_ts ON events(ts);
CREATE INDEX IF NOT EXISTS events_server ON events(server, ts);
CREATE INDEX IF NOT EXISTS events_tool ON events(tool, ts);
PRAGMA user_version = 1;
";

/// How long SQLite waits for another connection's lock (a concurrent
/// `toolbridge audit` reader, or a second hub) before failing a write.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// An open sink, owned by the writer thread.
pub(super) enum Sink {
    Sqlite {
        conn: Connection,
        path: PathBuf,
    },
    Jsonl {
        file: BufWriter<File>,
        path: PathBuf,
    },
    Stdout,
}

impl Sink {
    /// Opens (creating if needed) the SQLite database at `path`: WAL mode,
    /// the schema, and its parent directory.
    pub(super) fn sqlite(path: &Path) -> Result<Self, AuditError> {
        create_parent(path)?;
        let err = |operation| {
            move |source| AuditError::Sqlite {
                path: path.to_owned(),
                operation,
                source,
            }
        };
        let conn = Connection::open(path).map_err(err("open"))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(err("set busy timeout"))?;
        // WAL lets `toolbridge audit` read while the hub writes; NORMAL
        // sync is durable across process crashes, which is what matters
        // for an audit trail of a local tool.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err("enable WAL"))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(err("set synchronous"))?;
        conn.execute_batch(SCHEMA).map_err(err("create schema"))?;
        Ok(Self::Sqlite {
            conn,
            path: path.to_owned(),
        })
    }

    /// Opens `path` for appending JSON lines, creating it and its parent
    /// directory if needed.
    pub(super) fn jsonl(path: &Path) -> Result<Self, AuditError> {
        create_parent(path)?;
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|source| AuditError::Io {
                path: path.to_owned(),
                operation: "open for append",
                source,
            })?;
        end_torn_line(&file).map_err(|source| AuditError::Io {
            path: path.to_owned(),
            operation: "check the end of",
            source,
        })?;
        Ok(Self::Jsonl {
            file: BufWriter::new(file),
            path: path.to_owned(),
        })
    }

    /// Where the sink writes, for log messages.
    pub(super) fn describe(&self) -> String {
        match self {
            Self::Sqlite { path, .. } | Self::Jsonl { path, .. } => path.display().to_string(),
            Self::Stdout => "stdout".to_owned(),
        }
    }

    /// Writes `events` in order and makes them visible to readers: one
    /// transaction for SQLite, one flushed write for the JSON lines sinks.
    pub(super) fn write_batch(&mut self, events: &[AuditEvent]) -> Result<(), SinkError> {
        match self {
            Self::Sqlite { conn, .. } => {
                let tx = conn.transaction()?;
                {
                    let mut insert = tx.prepare(
                        "INSERT INTO events (ts, kind, server, tool, outcome, duration_ms, json) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    )?;
                    for event in events {
                        let json = serde_json::to_string(event)?;
                        let (outcome, duration_ms) = match &event.kind {
                            super::AuditEventKind::McpToolCall {
                                outcome,
                                duration_ms,
                                ..
                            } => (
                                serde_json::to_value(outcome)?.as_str().map(str::to_owned),
                                i64::try_from(*duration_ms).ok(),
                            ),
                            _ => (None, None),
                        };
                        insert.execute(params![
                            event.timestamp.to_string(),
                            event.kind_name(),
                            event.server(),
                            event.tool(),
                            outcome,
                            duration_ms,
                            json,
                        ])?;
                    }
                }
                tx.commit()?;
            }
            Self::Jsonl { file, .. } => {
                write_lines(file, events)?;
                file.flush()?;
            }
            Self::Stdout => {
                let mut out = io::stdout().lock();
                write_lines(&mut out, events)?;
                out.flush()?;
            }
        }
        Ok(())
    }
}

fn write_lines(out: &mut impl Write, events: &[AuditEvent]) -> Result<(), SinkError> {
    for event in events {
        serde_json::to_writer(&mut *out, event)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// A previous writer that died mid-line left the file without a final
/// newline; start on a fresh line so the next event is not glued to it.
fn end_torn_line(mut file: &File) -> io::Result<()> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    if last[0] != b'\n' {
        file.write_all(b"\n")?;
    }
    Ok(())
}

fn create_parent(path: &Path) -> Result<(), AuditError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => {
            fs::create_dir_all(dir).map_err(|source| AuditError::Io {
                path: dir.to_owned(),
                operation: "create directory",
                source,
            })
        }
        _ => Ok(()),
    }
}

/// A failed write on the writer thread; only logged, never returned to a
/// caller of `record`.
#[derive(Debug, thiserror::Error)]
pub(super) enum SinkError {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}
