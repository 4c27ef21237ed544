//! Start-up behaviours: fatal exit, stderr flood, SIGTERM handling, logging.

use std::io::{self, BufWriter, Write};

/// Writes the fatal config error to stderr and exits with `code`.
pub fn exit_at_startup(code: i32) -> ! {
    let mut stderr = io::stderr().lock();
    let _ = writeln!(
        stderr,
        "fatal: config file /nonexistent/config.json not found"
    );
    let _ = stderr.flush();
    std::process::exit(code);
}

/// Sends rmcp's own `tracing` output to stderr (filter from `RUST_LOG`,
/// default `error`). Stdout is never used for logs.
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(false)
        .try_init();
}

/// Writes exactly `bytes` bytes of log lines to stderr (64-byte lines such as
/// `log line 000123 .....`), then `stderr flood done`. Blocks while nobody
/// drains the pipe, which is the point.
pub fn stderr_flood(bytes: u64) -> io::Result<()> {
    const LINE: usize = 64;
    let mut out = BufWriter::with_capacity(64 * 1024, io::stderr().lock());
    let mut left = bytes;
    let mut index = 0u64;
    while left > 0 {
        let mut line = format!("log line {index:06} ").into_bytes();
        line.resize(LINE - 1, b'.');
        line.push(b'\n');
        let take = usize::try_from(left).map_or(LINE, |left| left.min(LINE));
        line.truncate(take);
        if let Some(last) = line.last_mut() {
            *last = b'\n';
        }
        out.write_all(&line)?;
        left -= take as u64;
        index += 1;
    }
    out.write_all(b"stderr flood done\n")?;
    out.flush()
}

/// Installs a SIGTERM handler that only logs, so SIGTERM no longer kills us.
pub fn ignore_sigterm() -> io::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut sigterm = signal(SignalKind::terminate())?;
        tokio::spawn(async move {
            while sigterm.recv().await.is_some() {
                eprintln!("fixture: got SIGTERM, ignoring it (ignore-sigterm quirk)");
            }
        });
    }
    Ok(())
}
