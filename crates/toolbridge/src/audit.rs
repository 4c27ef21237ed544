//! The audit log: every connect, disconnect, restart and tool call of the
//! hub's MCP servers, on record (issue 3, "Audit log").
//!
//! - [`AuditEvent`]: one record, with a stable, documented JSON shape.
//!   Tool calls record argument *names*, never values.
//! - [`AuditLog`]: the handle callers record through. [`AuditLog::record`]
//!   never blocks: a bounded queue feeds a background writer thread, and
//!   overflow is counted and itself recorded (`audit_dropped`).
//! - Sinks, chosen by [`AuditConfig`](crate::config::AuditConfig): SQLite
//!   (the default; [`default_sqlite_path`]), JSON lines appended to a
//!   file, or JSON lines on stdout for log shippers.
//! - [`query`] / [`AuditQuery`] / [`render_table`]: reading it back, for
//!   `toolbridge audit [--server S] [--tool T] [--since 1h] [--json]`.
//!
//! # SQLite layout
//! One table, `events(id INTEGER PRIMARY KEY, ts TEXT, kind TEXT, server
//! TEXT, tool TEXT, outcome TEXT, duration_ms INTEGER, json TEXT)`, indexed
//! on `ts`, `(server, ts)` and `(tool, ts)`, in WAL mode so it can be read
//! while written. `json` holds the whole event; the other columns repeat
//! its fields for filtering (`outcome` and `duration_ms` for tool calls
//! only). `PRAGMA user_version` is the schema version, 1.
//!
//! # Examples
//! ```no_run
//! use std::time::Duration;
//! use toolbridge::audit::{self, AuditEvent, AuditLog, AuditQuery};
//! use toolbridge::config::AuditConfig;
//!
//! let config = AuditConfig::Sqlite { path: Some("/tmp/audit.sqlite3".into()) };
//! let log = AuditLog::open(&config)?;
//! log.record(AuditEvent::connect("git", "stdio", 12));
//! log.flush(Duration::from_secs(5))?;
//!
//! let recent = audit::query(&config, &AuditQuery {
//!     server: Some("git".into()),
//!     since: Some(audit::parse_since("1h")?),
//!     ..AuditQuery::default()
//! })?;
//! print!("{}", audit::render_table(&recent));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod event;
mod log;
mod query;
mod sink;
mod time;

pub use error::AuditError;
pub use event::{
    AuditEvent, AuditEventKind, CallOutcome, DisconnectReason, MAX_TEXT_CHARS, argument_names,
};
pub use log::{AuditLog, DEFAULT_CAPACITY, default_sqlite_path};
pub use query::{AuditQuery, query, query_jsonl, query_sqlite, render_table};
pub use time::{Timestamp, parse_since};
