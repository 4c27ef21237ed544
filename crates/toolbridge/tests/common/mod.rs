//! Shared helpers for integration tests: the fixture server (from
//! `toolbridge-testkit`) as an `McpServerStdio`, and the npm interop
//! servers.
#![allow(dead_code, unused_imports)]

use std::path::{Path, PathBuf};

use toolbridge::mcp::McpServerStdio;

pub use toolbridge_testkit::{HttpFixture, fixture_bin, process_alive};

/// A stdio server running the fixture with `args`, named `fixture`.
pub fn fixture(args: &[&str]) -> McpServerStdio {
    McpServerStdio::command(fixture_bin().to_string_lossy(), args.iter().copied())
        .with_name("fixture")
}

/// `interop/node_modules`, from `TOOLBRIDGE_INTEROP_DIR` or next to the
/// workspace. `None` (the test should skip) when it is missing, unless
/// `TOOLBRIDGE_INTEROP_REQUIRED=1`, where a missing install panics.
pub fn interop_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLBRIDGE_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../interop/node_modules")
        });
    if dir.join(".bin").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("TOOLBRIDGE_INTEROP_REQUIRED").as_deref() != Ok("1"),
        "interop servers are required but missing at {}; run `npm ci --prefix interop`",
        dir.display()
    );
    eprintln!(
        "skipping: interop servers not installed at {} (run `npm ci --prefix interop`)",
        dir.display()
    );
    None
}
