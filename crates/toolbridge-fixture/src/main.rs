//! `toolbridge-fixture`: a real MCP server, built on the official Rust SDK
//! (`rmcp`), used by toolbridge's integration tests and benchmarks.
//!
//! # Transports
//!
//! * default: stdio, newline-delimited JSON-RPC, through our own byte-level
//!   [`quirk_transport::QuirkTransport`] so quirks can be injected on the wire.
//!   Logs go to stderr; stdout is protocol (plus deliberate junk in `banner`).
//! * `--http ADDR` (e.g. `127.0.0.1:0`): Streamable HTTP at `/mcp` (rmcp's
//!   `StreamableHttpService` under axum, `TCP_NODELAY` on). Prints exactly one
//!   line `listening on http://ADDR/mcp` to stdout once bound. Accepts both
//!   legacy sessions (`initialize` + `Mcp-Session-Id`) and stateless
//!   2026-07-28 requests. `--json-response` answers stateless requests with
//!   `application/json` instead of SSE. Writes `fixture: DELETE session ID
//!   -> STATUS` to stderr for every `DELETE`, and `fixture: session ID
//!   expired` when it closes a session marked by `expire_session`.
//!
//! # Tools
//!
//! `echo`, `add`, `env`, `sleep_echo`, `big`, `crash`, `hang`,
//! `cancelled_requests`, `fail`, `invalid`, `mixed`, `ask_client`, `add_tool`,
//! `schema_empty`, `schema_no_props`, `schema_pydantic`, `pid` (see
//! [`catalog`] for schemas and [`calls`] for behaviour), and for the HTTP
//! transport:
//!
//! * `headers`: the HTTP request headers of the current `tools/call` as JSON
//!   (`{}` on stdio).
//! * `initialize_count`: how many `initialize` requests the process handled.
//! * `expire_session`: the caller's legacy session is closed in rmcp's
//!   session manager when its next request arrives, which rmcp answers 404
//!   (the "expired session" case of the spec).
//!
//! # Quirks (`--quirk NAME`, repeatable)
//!
//! * `banner`: emoji plain-text lines on stdout before anything else, and a
//!   non-JSON log line after the initialize/discover response and after every
//!   5th message (stdio only).
//! * `crlf`: every line ends with `\r\n` (stdio only).
//! * `notify-before-init`: `notifications/tools/list_changed` and
//!   `notifications/message` are written before the initialize (or
//!   `server/discover`) response (stdio only).
//! * `paged`: `tools/list` comes in 3 pages (`page-2`, `page-3`, then none).
//! * `repeat-cursor`: like `paged`, but the last page returns `page-3` forever.
//! * `bad-tools`: malformed tools spliced into the first `tools/list` page at
//!   the JSON level (stdio only).
//! * `ignore-sigterm`: SIGTERM is logged and ignored; stdin EOF does not stop
//!   the server.
//!
//! # Options
//!
//! * `--protocol auto|legacy|legacy-odd|legacy-silent`: `auto` serves both eras; `legacy`
//!   answers `server/discover` with -32601 and negotiates at most 2025-06-18;
//!   `legacy-silent` never answers it on stdio (like `legacy` over HTTP);
//!   `legacy-odd` answers it with `"id": null`, -32600
//!   "Bad Request: Server not initialized".
//! * `--exit-at-startup CODE`, `--stderr-flood BYTES`, `--slow-start MS`.

mod calls;
mod catalog;
mod handler;
mod http;
mod line_io;
mod quirk_transport;
mod quirks;
mod startup;

use std::net::SocketAddr;

use clap::Parser;
use rmcp::{ServiceExt, service::ServerInitializeError};

use crate::{
    handler::FixtureServer,
    quirk_transport::QuirkTransport,
    quirks::{ProtocolMode, Quirk, QuirkSet},
};

/// Command-line arguments of the fixture server.
#[derive(Debug, Parser)]
#[command(
    name = "toolbridge-fixture",
    version,
    about = "MCP fixture server with quirk modes"
)]
struct Args {
    /// Serve Streamable HTTP at `/mcp` on this address instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// In HTTP mode, answer stateless (2026-07-28) requests with
    /// `application/json` instead of SSE (legacy sessions always use SSE).
    #[arg(long)]
    json_response: bool,
    /// Enable a quirk (repeatable).
    #[arg(long = "quirk", value_enum, value_name = "NAME")]
    quirks: Vec<Quirk>,
    /// Which protocol eras to speak.
    #[arg(long, value_enum, default_value_t = ProtocolMode::Auto)]
    protocol: ProtocolMode,
    /// Print a fatal error to stderr and exit with CODE before reading anything.
    #[arg(long, value_name = "CODE", allow_negative_numbers = true)]
    exit_at_startup: Option<i32>,
    /// Write BYTES bytes of log lines to stderr before serving.
    #[arg(long, value_name = "BYTES")]
    stderr_flood: Option<u64>,
    /// Sleep MS milliseconds before serving.
    #[arg(long, value_name = "MS")]
    slow_start: Option<u64>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if let Some(code) = args.exit_at_startup {
        startup::exit_at_startup(code);
    }
    startup::init_tracing();
    let quirks = QuirkSet::from_flags(&args.quirks);
    if quirks.ignore_sigterm {
        startup::ignore_sigterm()?;
    }
    if let Some(bytes) = args.stderr_flood {
        startup::stderr_flood(bytes)?;
    }
    if let Some(ms) = args.slow_start {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }

    let server = FixtureServer::new(quirks.paging, args.protocol);
    if let Some(addr) = args.http {
        return http::serve(addr, server, args.protocol, args.json_response).await;
    }

    let transport = QuirkTransport::stdio(quirks, args.protocol);
    match server.serve(transport).await {
        Ok(running) => {
            running.waiting().await?;
            Ok(())
        }
        // stdin closed before any handshake: a normal, quiet exit.
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(error) => Err(error.into()),
    }
}
