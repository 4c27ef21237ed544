//! The start-up spinner, and stderr writes that do not tear it.
//!
//! A cold `npx -y` start downloads packages for many seconds; a spinner on
//! stderr says that something is happening. It is drawn only when stderr is
//! a terminal, so pipes and CI logs never see control sequences.

use std::{
    io::{self, IsTerminal, Write},
    sync::Mutex,
    time::Duration,
};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The spinner being drawn, if any, so log lines can be written around it.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// The active spinner, tolerating a poisoned lock: the slot holds a plain
/// handle that a panic cannot leave half-written.
fn active() -> std::sync::MutexGuard<'static, Option<ProgressBar>> {
    ACTIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A spinner on stderr, cleared when dropped. Does nothing when stderr is
/// not a terminal.
#[derive(Debug)]
pub struct Spinner {
    bar: Option<ProgressBar>,
}

impl Spinner {
    /// Starts a spinner showing `message` and the elapsed time.
    pub fn start(message: String) -> Self {
        if !io::stderr().is_terminal() {
            return Self { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(message);
        bar.enable_steady_tick(Duration::from_millis(100));
        *active() = Some(bar.clone());
        Self { bar: Some(bar) }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            active().take();
            bar.finish_and_clear();
        }
    }
}

/// Writes `bytes` to stderr, lifting the spinner (if one is drawn) out of
/// the way first so the line is not drawn over.
pub fn write_stderr(bytes: &[u8]) -> io::Result<()> {
    let bar = active().clone();
    match bar {
        Some(bar) => bar.suspend(|| io::stderr().lock().write_all(bytes)),
        None => io::stderr().lock().write_all(bytes),
    }
}
