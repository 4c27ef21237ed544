//! `toolbridge`: list and call the tools of MCP servers from the shell.
//!
//! ```text
//! toolbridge tools [--json] [--prefix P] [--allow NAME]... [--block NAME]... SERVER
//! toolbridge call TOOL [--args JSON] [--timeout SECS] [--json] SERVER
//!
//! SERVER:  -- COMMAND [ARGS...] [--env K=V]... [--cwd DIR]   (stdio)
//!       |  --url URL [-H 'Name: value']...                   (Streamable HTTP)
//!          [--startup-timeout SECS] [--name NAME]
//!
//! Hub mode (FILE: toolbridge.toml, claude_desktop_config.json, .mcp.json,
//! .vscode/mcp.json; without --config: ./toolbridge.toml, else
//! $XDG_CONFIG_HOME/toolbridge/toolbridge.toml or ~/.config/toolbridge/toolbridge.toml):
//! toolbridge servers [--config FILE] [--startup-timeout SECS]
//! toolbridge tools [--config FILE] [--server NAME] [--json]
//! toolbridge call EXPOSED_TOOL [--config FILE] [--args JSON] [--timeout SECS] [--json]
//! toolbridge config check [FILE]
//! toolbridge audit [--config FILE] [--server S] [--tool T] [--since 1h] [--limit N] [--json]
//! ```
//!
//! A thin binary over the `toolbridge` library (ripgrep's split): it turns
//! flags into a validated configuration before any I/O, connects (one
//! server, or every enabled server of a config through the hub), runs one
//! command, always cleans up, and maps the outcome to an exit code. Results
//! go to stdout; logs, progress, the spinner and errors to stderr.
//!
//! # Exit codes
//! - 0: success.
//! - 1: the tool ran and reported an error (`isError: true`).
//! - 2: usage or configuration error (clap's code too; `--help` and
//!   `--version` exit 0). In hub mode also: no config file found, a config
//!   file that does not load, an unknown `--server`, and an exposed tool
//!   name no server has (when every server connected).
//! - 3: connection, protocol or timeout error. In hub mode also: `servers`
//!   and `tools` when any enabled server failed to connect (the rest is
//!   still printed), and `call` of an unknown name while some server is
//!   down (the tool may be there).
//! - 130 / 143: interrupted by SIGINT / SIGTERM (the servers are cleaned
//!   up first).
//!
//! # Layout
//! - [`args`]: clap definitions, flag parsers, the validated
//!   [`args::ServerConfig`] and the choice of single-server or hub mode.
//! - [`commands`]: `tools` and `call` (each in both modes), `servers`,
//!   `config check`, `audit`.
//! - [`config_file`]: finding (`--config` or discovery) and loading the
//!   hub's config file.
//! - [`server`]: building the server; connect → work → cleanup, signals.
//! - [`hub`]: the hub for one command; parallel connects with progress →
//!   work → close.
//! - [`output`]: the tool table, result text, JSON.
//! - [`progress`]: the start-up spinner on a terminal's stderr.
//! - [`logging`]: the `tracing` subscriber (stderr, `-v`, `RUST_LOG`).
//! - [`exit`]: exit codes, error classification and printing.

// Library-grade rule for the binary too: no panicking shortcuts outside tests.
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

mod args;
mod commands;
mod config_file;
mod exit;
mod hub;
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
    let single = match cli.command.single_server() {
        Ok(single) => single,
        Err(error) => return exit::clap_error(&error),
    };
    logging::init(cli.verbose);

    let outcome = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")
        .and_then(|runtime| runtime.block_on(commands::run(&cli.command, single.as_ref())));
    exit::report(outcome)
}
