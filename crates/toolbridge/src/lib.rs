//! toolbridge: MCP servers' tools as native Rust tools.
//!
//! Connect to any MCP server (a local command over stdio, or a URL over
//! Streamable HTTP), list its tools, and use them beside native tools in
//! one [`ToolRegistry`]. Built on `rmcp`, the official Rust SDK, for the
//! wire types and protocol engine; toolbridge adds what real servers need:
//! child-process lifecycle, tolerant stdio framing, timeouts with
//! cancellation, paged tool lists with loop guards, and clear errors.
//!
//! # Layout
//! - [`mcp`]: servers ([`mcp::McpServerStdio`], [`mcp::McpServerStreamableHttp`]),
//!   the [`mcp::McpServer`] trait, and [`mcp::mcp_server_to_function_tools`].
//! - [`config`]: server config files (Claude, VS Code, TOML) as [`config::HubConfig`]; secret masking.
//! - [`hub`]: [`hub::Hub`], many named servers with namespaced tools,
//!   restart on crash, refresh on `tools/list_changed`, per-server caps.
//! - [`naming`]: exposed tool names for many servers in one namespace
//!   (`mcp_{server}_{tool}` / `{prefix}__{tool}`, 64 characters, hash suffixes)
//!   and the routing table. Groundwork for the hub.
//! - [`audit`]: the audit log of connects, calls and disconnects (SQLite or JSON lines; never blocks).
//! - [`policy`]: [`policy::CommandPolicy`], what a remotely added stdio server may run.
//! - The tool core, re-exported from `toolbridge-core`: [`ToolSpec`],
//!   [`Tool`], [`FunctionTool`], [`ToolRegistry`], [`ToolFilter`],
//!   [`ToolResult`], [`Content`], [`ToolError`].
//!
//! # Examples
//! ```no_run
//! use toolbridge::mcp::{BridgeOptions, McpServer, McpServerStdio, mcp_server_to_function_tools};
//! use toolbridge::{FunctionTool, ToolFilter, ToolRegistry, ToolResult};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let everything = McpServerStdio::command("npx", ["-y", "@modelcontextprotocol/server-everything@2026.8.31"])
//!     .with_name("everything");
//! everything.connect().await?;
//!
//! let mut registry = ToolRegistry::new();
//! registry.register_all(
//!     mcp_server_to_function_tools(
//!         &everything,
//!         BridgeOptions::default()
//!             .with_tool_filter(ToolFilter::allow(["echo", "get-sum"]))
//!             .with_name_prefix("ev"),
//!     )
//!     .await?,
//! )?;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Shout { text: String }
//! registry.register(FunctionTool::from_typed("shout", "Upper-case text.", |a: Shout| async move {
//!     Ok::<_, toolbridge::ToolError>(a.text.to_uppercase())
//! }))?;
//!
//! let reply = registry.call("ev__echo", serde_json::json!({"message": "hi"})).await?;
//! assert_eq!(reply.text_content(), "Echo: hi");
//! everything.cleanup().await?;
//! # Ok(())
//! # }
//! ```

pub mod audit;
pub mod config;
pub mod hub;
pub mod mcp;
pub mod naming;
pub mod policy;

pub use toolbridge_core::{
    BoxError, BoxFuture, Content, EmbeddedResource, FunctionTool, Tool, ToolAnnotations, ToolError,
    ToolFilter, ToolRegistry, ToolResult, ToolSpec, filter, function, normalize_input_schema,
    registry, result, spec, tool, validate_tool_name,
};
