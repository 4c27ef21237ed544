//! The `tracing` subscriber: everything to stderr (stdout carries only
//! results), `warn` by default; `-v` raises toolbridge's own logs to `info`
//! (which includes the server's stderr lines, target
//! `toolbridge::server_stderr`), `-vv` to `debug`, `-vvv` and `-vvvv` raise
//! everything to `debug` and `trace`. `RUST_LOG`, when set, replaces the
//! flags.

use std::io::{self, IsTerminal};

use tracing::level_filters::LevelFilter;
use tracing_subscriber::{EnvFilter, fmt::MakeWriter};

/// Installs the subscriber. Call once, before anything logs.
pub fn init(verbose: u8) {
    let filter = match std::env::var("RUST_LOG") {
        // Unparsable directives are skipped rather than fatal: a typo in a
        // logging variable should not stop the command.
        Ok(directives) if !directives.trim().is_empty() => EnvFilter::builder()
            .with_default_directive(LevelFilter::WARN.into())
            .parse_lossy(directives),
        _ => EnvFilter::new(verbosity_directives(verbose)),
    };
    // Only fails if a subscriber is already set, which `main` never does.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(StderrWriter)
        .with_ansi(io::stderr().is_terminal())
        .without_time()
        .try_init();
}

/// The filter for `-v` counted `verbose` times. toolbridge's own targets
/// (the library, the server's stderr, this binary) are raised one step
/// ahead of the dependencies, whose `info` is protocol chatter.
///
/// By default rmcp is silent: what it logs at `error` (e.g. a refused HTTP
/// connection) comes back as the `McpError` that `main` prints, so showing
/// both would say everything twice. `-v` lets its warnings through.
fn verbosity_directives(verbose: u8) -> &'static str {
    match verbose {
        0 => "warn,rmcp=off",
        1 => "warn,toolbridge=info",
        2 => "info,toolbridge=debug",
        3 => "debug",
        _ => "trace",
    }
}

/// Makes [`LogWriter`]s.
#[derive(Debug, Clone, Copy)]
struct StderrWriter;

impl<'a> MakeWriter<'a> for StderrWriter {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> Self::Writer {
        LogWriter
    }
}

/// Writes one formatted event to stderr around the spinner (see
/// [`crate::progress::write_stderr`]).
#[derive(Debug)]
struct LogWriter;

impl io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        crate::progress::write_stderr(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        crate::progress::write_stderr(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}
