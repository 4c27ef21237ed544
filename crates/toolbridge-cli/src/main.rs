//! `toolbridge`: list and call the tools of any MCP server from the shell.
//!
//! ```text
//! toolbridge tools [--json] [--prefix P] [--allow NAME]... [--block NAME]... SERVER
//! toolbridge call TOOL [--args JSON] [--timeout SECS] [--json] SERVER
//!
//! SERVER:  -- COMMAND [ARGS...] [--env K=V]... [--cwd DIR]   (stdio)
//!       |  --url URL [-H 'Name: value']...                   (Streamable HTTP)
//!          [--startup-timeout SECS] [--name NAME]
//! ```
//!
//! A thin binary over the `toolbridge` library (ripgrep's split): it turns
//! flags into a validated configuration before any I/O, connects, runs one
//! command, always cleans the server up, and maps the outcome to an exit
//! code. Results go to stdout; logs, the spinner and errors to stderr.
//!
//! # Exit codes
//! - 0: success.
//! - 1: the tool ran and reported an error (`isError: true`).
//! - 2: usage or configuration error (clap's code too; `--help` and
//!   `--version` exit 0).
//! - 3: connection, protocol or timeout error.
//! - 130 / 143: interrupted by SIGINT / SIGTERM (the server is cleaned up
//!   first).
//!
//! # Layout
//! - [`args`]: clap definitions, flag parsers, the validated
//!   [`args::ServerConfig`].
//! - [`commands`]: `tools` and `call`.
//! - [`server`]: building the server; connect → work → cleanup, signals.
//! - [`output`]: the tool table, result text, JSON.
//! - [`progress`]: the start-up spinner on a terminal's stderr.
//! - [`logging`]: the `tracing` subscriber (stderr, `-v`, `RUST_LOG`).
//! - [`exit`]: exit codes, error classification and printing.

// Library-grade rule for the binary too: no panicking shortcuts outside tests.
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

mod args;
mod commands;
mod exit;
mod logging;
mod output;
mod progress;
mod server;

use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;

use crate::args::Cli;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return exit::clap_error(&error),
    };
    let config = match cli.command.server().to_config() {
        Ok(config) => config,
        Err(error) => return exit::clap_error(&error),
    };
    logging::init(cli.verbose);

    let outcome = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")
        .and_then(|runtime| runtime.block_on(commands::run(&cli.command, &config)));
    exit::report(outcome)
}
