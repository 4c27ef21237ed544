//! Helpers shared by the end-to-end tests: the fixture server binary and
//! running the `toolbridge` binary.

// Each test crate uses a different subset.
#![allow(dead_code)]

use std::{
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::OnceLock,
};

/// The path of the `toolbridge-fixture` binary of the current profile,
/// building it once if it is not there yet (as in
/// `crates/toolbridge/tests/common/mod.rs`).
pub fn fixture_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        // target/<profile>/deps/<test-exe> → target/<profile>
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile> directory")
            .to_path_buf();
        let bin = profile_dir.join("toolbridge-fixture");
        if !bin.exists() {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
            let mut build = Command::new(cargo);
            build.args([
                "build",
                "-p",
                "toolbridge-fixture",
                "--bin",
                "toolbridge-fixture",
            ]);
            if profile_dir.file_name().is_some_and(|n| n == "release") {
                build.arg("--release");
            }
            let status = build.status().expect("run cargo build for the fixture");
            assert!(status.success(), "building toolbridge-fixture failed");
        }
        bin
    })
    .clone()
}

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
