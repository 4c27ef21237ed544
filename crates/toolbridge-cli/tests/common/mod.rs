//! Helpers shared by the end-to-end tests: the fixture server binary and
//! running the `toolbridge` binary.

// Each test crate uses a different subset.
#![allow(dead_code)]

use std::process::{Command, Output, Stdio};

pub use toolbridge_testkit::fixture_bin;

/// The fixture binary's path as a string, for command lines.
pub fn fixture() -> String {
    fixture_bin().to_string_lossy().into_owned()
}

/// What one run of the binary produced.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Self {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// The binary, with a clean logging environment and no stdin.
pub fn toolbridge_command<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolbridge"));
    command
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs the binary to the end.
pub fn toolbridge<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    toolbridge_command(args)
        .output()
        .expect("run the toolbridge binary")
        .into()
}
