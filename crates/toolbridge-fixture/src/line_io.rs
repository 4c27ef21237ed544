//! Raw stdin/stdout plumbing on dedicated threads.
//!
//! Each outgoing frame is written with one `write_all` into a `BufWriter` and
//! one flush, so every message (plus any junk the quirks attach) leaves in a
//! single `write(2)` when it fits the buffer. Dedicated threads avoid tokio's
//! per-operation `spawn_blocking` hops on stdio, which matters for round-trip
//! benchmarks.

use std::io::{self, BufRead, BufWriter, Write};

use tokio::sync::{mpsc, oneshot};

/// A frame to write plus the channel that reports when it hit the pipe.
struct Job {
    bytes: Vec<u8>,
    done: Option<oneshot::Sender<io::Result<()>>>,
}

/// A cloneable handle to the stdout writer thread; frames are written in
/// submission order.
#[derive(Clone)]
pub struct StdoutWriter {
    tx: std::sync::mpsc::Sender<Job>,
}

impl StdoutWriter {
    /// Starts the writer thread.
    pub fn spawn() -> Self {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("fixture-stdout".into())
            .spawn(move || {
                let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
                while let Ok(job) = rx.recv() {
                    let result = out.write_all(&job.bytes).and_then(|()| out.flush());
                    if let Some(done) = job.done {
                        let _ = done.send(result);
                    }
                }
            })
            .expect("spawn stdout writer thread");
        Self { tx }
    }

    /// Queues a frame; the returned future resolves once it has been flushed.
    pub fn submit(&self, bytes: Vec<u8>) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let (done, wait) = oneshot::channel();
        let queued = self.tx.send(Job {
            bytes,
            done: Some(done),
        });
        async move {
            queued.map_err(|_| closed())?;
            wait.await.map_err(|_| closed())?
        }
    }

    /// Queues a frame without waiting for it to be written.
    pub fn submit_detached(&self, bytes: Vec<u8>) {
        let _ = self.tx.send(Job { bytes, done: None });
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "stdout writer is gone")
}

/// Starts a thread that reads stdin line by line (newline included).
///
/// The receiver yields `None` at EOF or on a read error.
pub fn spawn_stdin_reader() -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel(64);
    std::thread::Builder::new()
        .name("fixture-stdin".into())
        .spawn(move || {
            let mut input = io::stdin().lock();
            loop {
                let mut line = Vec::new();
                match input.read_until(b'\n', &mut line) {
                    Ok(0) => break,
                    Ok(_) => {
                        if tx.blocking_send(line).is_err() {
                            break;
                        }
                    }
                    Err(error) => {
                        eprintln!("fixture: stdin read error: {error}");
                        break;
                    }
                }
            }
        })
        .expect("spawn stdin reader thread");
    rx
}
