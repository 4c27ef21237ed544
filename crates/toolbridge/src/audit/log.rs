//! [`AuditLog`]: the handle callers record through, and its background
//! writer thread.

use std::{
    fmt,
    path::PathBuf,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError},
    },
    thread::{self, JoinHandle},
    time::{Duration, Instant},
};

use super::{AuditError, AuditEvent, sink::Sink};
use crate::config::AuditConfig;

/// Events the queue holds before [`AuditLog::record`] starts dropping them.
pub const DEFAULT_CAPACITY: usize = 4096;

/// At most this many events go into one write (one SQLite transaction).
const MAX_BATCH: usize = 1024;

/// How often a blocked `flush` / `close` retries a full queue.
const RETRY_EVERY: Duration = Duration::from_millis(1);

enum Msg {
    Event(AuditEvent),
    /// Answer once everything queued before it is written.
    Flush(mpsc::Sender<()>),
    /// Like `Flush`, then stop.
    Close(mpsc::Sender<()>),
}

/// The audit log: a cheap-to-clone handle to a bounded queue drained by a
/// background writer thread into one sink (SQLite, a JSON lines file, or
/// stdout), or a disabled log that discards everything.
///
/// [`record`](Self::record) never blocks and never fails: when the queue
/// (capacity [`DEFAULT_CAPACITY`] unless opened with
/// [`open_with_capacity`](Self::open_with_capacity)) is full the event is
/// dropped and counted, and the writer records an `audit_dropped { count }`
/// event the next time it writes. Write failures on the writer are logged
/// with `tracing` (`warn`) and the batch is lost.
///
/// The writer is a plain `std` thread, so the log works with or without a
/// tokio runtime and a slow disk never stalls an async worker. Dropping the
/// last handle never blocks: the writer drains what is queued and stops on
/// its own, but a process that exits right away may lose those events —
/// call [`close`](Self::close) (or [`flush`](Self::flush)) before exiting.
///
/// # Examples
/// ```no_run
/// use std::time::Duration;
/// use toolbridge::audit::{AuditEvent, AuditLog, CallOutcome};
/// use toolbridge::config::AuditConfig;
///
/// let log = AuditLog::open(&AuditConfig::Jsonl { path: "/tmp/audit.jsonl".into() })?;
/// log.record(AuditEvent::connect("git", "stdio", 12));
/// let args = serde_json::json!({"repo_path": "/src/app"});
/// log.record(AuditEvent::tool_call("git", "status", Duration::from_millis(41), CallOutcome::Ok, &args, None));
/// log.close(Duration::from_secs(5))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct AuditLog {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    tx: SyncSender<Msg>,
    dropped: Arc<AtomicU64>,
    closed: AtomicBool,
    writer: Mutex<Option<JoinHandle<()>>>,
    sink: String,
}

impl fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            None => f.write_str("AuditLog(disabled)"),
            Some(inner) => f
                .debug_struct("AuditLog")
                .field("sink", &inner.sink)
                .field("closed", &inner.closed.load(Ordering::Relaxed))
                .finish_non_exhaustive(),
        }
    }
}

impl AuditLog {
    /// Opens the sink `config` names and starts the writer, with a queue of
    /// [`DEFAULT_CAPACITY`] events. `Sqlite { path: None }` uses
    /// [`default_sqlite_path`]; `Off` gives [`AuditLog::disabled`]. Files
    /// and their parent directories are created when missing; a JSON lines
    /// file is appended to.
    ///
    /// # Errors
    /// [`AuditError::Io`] / [`AuditError::Sqlite`] when the file cannot be
    /// created or opened (or the schema created), [`AuditError::NoDataDir`]
    /// when the default path cannot be determined, [`AuditError::Spawn`]
    /// when the writer thread cannot start.
    pub fn open(config: &AuditConfig) -> Result<Self, AuditError> {
        Self::open_with_capacity(config, DEFAULT_CAPACITY)
    }

    /// [`open`](Self::open) with a queue of `capacity` events (at least 1).
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn open_with_capacity(config: &AuditConfig, capacity: usize) -> Result<Self, AuditError> {
        let sink = match config {
            AuditConfig::Sqlite { path: Some(path) } => Sink::sqlite(path)?,
            AuditConfig::Sqlite { path: None } => Sink::sqlite(&default_sqlite_path()?)?,
            AuditConfig::Jsonl { path } => Sink::jsonl(path)?,
            AuditConfig::Stdout => Sink::Stdout,
            AuditConfig::Off => return Ok(Self::disabled()),
        };
        let description = sink.describe();
        let (tx, rx) = mpsc::sync_channel(capacity.max(1));
        let dropped = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&dropped);
        let writer = thread::Builder::new()
            .name("toolbridge-audit".to_owned())
            .spawn(move || write_loop(sink, &rx, &counter))
            .map_err(AuditError::Spawn)?;
        Ok(Self {
            inner: Some(Arc::new(Inner {
                tx,
                dropped,
                closed: AtomicBool::new(false),
                writer: Mutex::new(Some(writer)),
                sink: description,
            })),
        })
    }

    /// A log that records nothing; every operation succeeds at once.
    pub fn disabled() -> Self {
        Self { inner: None }
    }

    /// Whether events go anywhere (false for [`disabled`](Self::disabled)).
    pub fn is_enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// Queues `event` for writing, without blocking: when the queue is full
    /// the event is dropped and counted (see the type's docs). After
    /// [`close`](Self::close) events are discarded.
    ///
    /// The writer stores the event cut and masked as [`AuditEvent`]
    /// describes (texts to 500 characters, secret-named values masked), so
    /// nothing recorded reaches the sink unsanitized.
    pub fn record(&self, event: AuditEvent) {
        let Some(inner) = &self.inner else { return };
        if inner.closed.load(Ordering::Acquire) {
            return;
        }
        match inner.tx.try_send(Msg::Event(event)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                inner.dropped.fetch_add(1, Ordering::AcqRel);
            }
            // The writer is gone (it panicked): nothing can be recorded.
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    /// Blocks until every event recorded before this call is written (and
    /// any dropped count with it), for at most `timeout`.
    ///
    /// # Errors
    /// [`AuditError::Timeout`] when the writer did not get there in time,
    /// [`AuditError::Closed`] after [`close`](Self::close).
    pub fn flush(&self, timeout: Duration) -> Result<(), AuditError> {
        let Some(inner) = &self.inner else {
            return Ok(());
        };
        if inner.closed.load(Ordering::Acquire) {
            return Err(AuditError::Closed);
        }
        inner.round_trip(Msg::Flush, "flush", timeout)
    }

    /// Writes everything queued, stops the writer and closes the sink,
    /// waiting at most `timeout`. Later records are discarded. Idempotent:
    /// closing again, or a disabled log, returns `Ok` at once.
    ///
    /// # Errors
    /// [`AuditError::Timeout`] when the writer did not finish in time (it
    /// keeps draining in the background).
    pub fn close(&self, timeout: Duration) -> Result<(), AuditError> {
        let Some(inner) = &self.inner else {
            return Ok(());
        };
        if inner.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        inner.round_trip(Msg::Close, "close", timeout)?;
        let writer = inner.writer.lock().ok().and_then(|mut w| w.take());
        // The writer answered Close and returns right after: joining is
        // immediate.
        if let Some(writer) = writer
            && writer.join().is_err()
        {
            tracing::warn!(sink = %inner.sink, "audit writer thread panicked");
        }
        Ok(())
    }
}

impl Inner {
    /// Sends the message `make` builds, waits for its answer.
    fn round_trip(
        &self,
        make: fn(mpsc::Sender<()>) -> Msg,
        operation: &'static str,
        timeout: Duration,
    ) -> Result<(), AuditError> {
        let deadline = Instant::now() + timeout;
        let timed_out = || AuditError::Timeout { operation, timeout };
        let (ack_tx, ack_rx) = mpsc::channel();
        let mut msg = make(ack_tx);
        // Unlike `record`, flush and close may wait for room in the queue.
        loop {
            match self.tx.try_send(msg) {
                Ok(()) => break,
                Err(TrySendError::Full(back)) if Instant::now() < deadline => {
                    msg = back;
                    thread::sleep(RETRY_EVERY);
                }
                Err(TrySendError::Full(_)) => return Err(timed_out()),
                Err(TrySendError::Disconnected(_)) => return Err(AuditError::Closed),
            }
        }
        match ack_rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(()) => Ok(()),
            Err(RecvTimeoutError::Timeout) => Err(timed_out()),
            Err(RecvTimeoutError::Disconnected) => Err(AuditError::Closed),
        }
    }
}

/// The writer thread: batch what is queued, add the dropped count, write,
/// answer flushes; until `Close` or every handle is gone.
fn write_loop(mut sink: Sink, rx: &Receiver<Msg>, dropped: &AtomicU64) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    loop {
        let mut acks = Vec::new();
        let mut stop = false;
        let mut next = rx.recv().ok();
        if next.is_none() {
            stop = true;
        }
        while let Some(msg) = next.take() {
            match msg {
                Msg::Event(event) => batch.push(event.sanitized()),
                Msg::Flush(ack) => acks.push(ack),
                Msg::Close(ack) => {
                    acks.push(ack);
                    stop = true;
                    break;
                }
            }
            if batch.len() < MAX_BATCH {
                next = rx.try_recv().ok();
            }
        }
        let count = dropped.swap(0, Ordering::AcqRel);
        if count > 0 {
            batch.push(AuditEvent::dropped(count));
        }
        if !batch.is_empty() {
            if let Err(error) = sink.write_batch(&batch) {
                tracing::warn!(
                    sink = %sink.describe(),
                    events = batch.len(),
                    %error,
                    "audit log write failed; these events are lost"
                );
            }
            batch.clear();
        }
        // Answered only now, so that a flush covers the batch it arrived in.
        for ack in acks {
            let _ = ack.send(());
        }
        if stop {
            return;
        }
    }
}

/// Where `AuditConfig::Sqlite { path: None }` puts the database: the
/// platform data directory plus `toolbridge/audit.sqlite3`.
///
/// - Linux and other Unixes: `$XDG_DATA_HOME/toolbridge/audit.sqlite3`
///   when `XDG_DATA_HOME` is set to an absolute path, else
///   `$HOME/.local/share/toolbridge/audit.sqlite3` (XDG Base Directory
///   spec).
/// - macOS: `$HOME/Library/Application Support/toolbridge/audit.sqlite3`.
/// - Windows: `%LOCALAPPDATA%\toolbridge\audit.sqlite3`.
///
/// # Errors
/// [`AuditError::NoDataDir`] when the variables it needs are unset or
/// empty.
pub fn default_sqlite_path() -> Result<PathBuf, AuditError> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        var("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|home| home.join("Library").join("Application Support"))
    } else {
        var("XDG_DATA_HOME")
            .filter(|p| p.is_absolute())
            .or_else(|| var("HOME").map(|home| home.join(".local").join("share")))
    };
    base.map(|dir| dir.join("toolbridge").join("audit.sqlite3"))
        .ok_or(AuditError::NoDataDir)
}
