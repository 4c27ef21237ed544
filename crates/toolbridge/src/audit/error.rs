//! [`AuditError`]: what can go wrong opening, flushing or querying the log.

use std::{io, path::PathBuf, time::Duration};

/// An audit log failure. Each variant names the file and the operation.
///
/// Writing events never returns an error to the caller (it happens on the
/// background writer, which logs failures with `tracing`); these errors
/// come from [`AuditLog::open`](super::AuditLog::open),
/// [`AuditLog::flush`](super::AuditLog::flush),
/// [`AuditLog::close`](super::AuditLog::close), [`query`](super::query) and
/// the parsers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// A file or directory of the log could not be created, opened or read.
    #[error("audit log {}: could not {operation}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done: `"create directory"`, `"open for append"`, ….
        operation: &'static str,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// SQLite refused an operation on the database.
    #[error("audit database {}: could not {operation}: {source}", path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// What was being done: `"open"`, `"create schema"`, `"query"`, ….
        operation: &'static str,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },
    /// There is no audit log to query at `path`.
    #[error(
        "no audit log at {}; nothing has been recorded yet, or the config points elsewhere",
        path.display()
    )]
    NotFound {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The default SQLite path needs `$XDG_DATA_HOME` or `$HOME`, and
    /// neither is set.
    #[error(
        "cannot place the audit database: neither XDG_DATA_HOME nor HOME is set; \
         set one, or give `audit = {{ sink = \"sqlite\", path = \"…\" }}` in the config"
    )]
    NoDataDir,
    /// The sink writes somewhere that cannot be read back (`stdout`,
    /// `off`).
    #[error("the '{sink}' audit sink cannot be queried; use the sqlite or jsonl sink to query")]
    NotQueryable {
        /// The sink's name as in config.
        sink: &'static str,
    },
    /// The background writer did not get through the queue in time.
    #[error("audit log did not {operation} within {timeout:?}; the sink may be slow or stuck")]
    Timeout {
        /// `"flush"` or `"close"`.
        operation: &'static str,
        /// The time allowed.
        timeout: Duration,
    },
    /// The log was closed (or its writer stopped) before the operation.
    #[error("audit log is closed")]
    Closed,
    /// The background writer thread could not be started.
    #[error("could not start the audit writer thread: {0}")]
    Spawn(#[source] io::Error),
    /// A `--since` value that is not a number and a unit.
    #[error("invalid --since '{input}': use a whole number and a unit: 45s, 30m, 1h, 2d or 1w")]
    InvalidSince {
        /// The text given (at most 64 characters of it).
        input: String,
    },
    /// A timestamp that is not RFC 3339 UTC (`2026-05-01T12:34:56.789Z`).
    #[error("invalid timestamp '{input}': expected RFC 3339 UTC like 2026-05-01T12:34:56.789Z")]
    InvalidTimestamp {
        /// The text given (at most 64 characters of it).
        input: String,
    },
}
