//! MCP client side: connect to MCP servers and bridge their tools.
//!
//! - [`McpServerStdio`]: a server run as a child process, speaking
//!   newline-delimited JSON-RPC on stdin / stdout (MCP specification
//!   2025-11-25, "Transports" → "stdio").
//! - [`McpServerStreamableHttp`]: a server at a URL (MCP specification
//!   2025-11-25, "Transports" → "Streamable HTTP").
//! - [`McpServer`]: what both have in common: `connect()`, `list_tools()`,
//!   `call_tool()`, `cleanup()`.
//! - [`mcp_server_to_function_tools`]: a server's tools as
//!   [`FunctionTool`](crate::FunctionTool)s, filtered and prefixed, ready for
//!   a [`ToolRegistry`](crate::ToolRegistry).
//!
//! Both protocol eras are spoken: the 2026-07-28 stateless era
//! (`server/discover`) is tried first, and servers of 2024-11-05 …
//! 2025-11-25 fall back to the `initialize` handshake (rmcp's
//! `ClientLifecycleMode::Auto`, plus a second, `initialize`-only attempt when
//! a legacy server answers the discovery probe in a way rmcp does not
//! classify).
//!
//! # Examples
//! ```no_run
//! use toolbridge::mcp::{BridgeOptions, McpServer, McpServerStdio, mcp_server_to_function_tools};
//! use toolbridge::{ToolFilter, ToolRegistry};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = McpServerStdio::command(
//!     "npx",
//!     ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/tmp"],
//! )
//! .with_name("fs");
//! server.connect().await?;
//!
//! let tools = mcp_server_to_function_tools(
//!     &server,
//!     BridgeOptions::default()
//!         .with_tool_filter(ToolFilter::allow(["read_text_file"]))
//!         .with_name_prefix("fs"),
//! )
//! .await?;
//! let mut registry = ToolRegistry::new();
//! registry.register_all(tools)?;
//!
//! let result = registry
//!     .call("fs__read_text_file", serde_json::json!({"path": "/tmp/notes.txt"}))
//!     .await?;
//! println!("{}", result.text_content());
//! server.cleanup().await?;
//! # Ok(())
//! # }
//! ```

mod bridge;
mod client;
mod convert;
mod describe;
mod error;
mod handle;
mod http;
mod line_transport;
mod multiplex;
mod process;
mod redact;
mod session;
mod stdio;
mod tool_info;

use std::time::Duration;

use serde_json::Value;
use toolbridge_core::{BoxFuture, ToolResult};

pub use bridge::{BridgeOptions, mcp_server_to_function_tools};
pub use error::McpError;
pub use handle::{McpServerHandle, McpServerOptions};
pub use http::{McpServerStreamableHttp, McpServerStreamableHttpParams};
pub use process::{
    DEFAULT_INHERITED_ENV, SIGTERM_GRACE, STDERR_TAIL_BYTES, is_inherited_by_default,
};
pub use session::MAX_TOOL_LIST_PAGES;
pub use stdio::{McpServerStdio, McpServerStdioParams};
pub use tool_info::McpToolInfo;

/// An MCP server toolbridge can connect to, whatever its transport.
///
/// All methods take `&self` and may be called from any task; a server is
/// usually shared in an `Arc` or borrowed. The connection itself lives in
/// the server's [`McpServerHandle`], which bridged tools hold too.
///
/// Mirrors the `MCPServer` interface of the OpenAI Agents SDK (`connect`,
/// `list_tools`, `call_tool`, `cleanup`).
pub trait McpServer: Send + Sync {
    /// The handle that owns this server's connection.
    fn handle(&self) -> &McpServerHandle;

    /// Starts the server (spawns it, or opens the connection) and runs the
    /// handshake. Calling it on a connected server does nothing; after
    /// `cleanup()` it connects again.
    ///
    /// # Errors
    /// [`McpError::Spawn`], [`McpError::ExitedDuringStartup`] (with the exit
    /// status and stderr), [`McpError::StartupTimeout`],
    /// [`McpError::Handshake`].
    fn connect(&self) -> BoxFuture<'_, Result<(), McpError>>;

    /// The server's name (used in errors, logs and prefixes).
    fn name(&self) -> &str {
        self.handle().name()
    }

    /// Lists all tools (`tools/list`, every page). See
    /// [`McpServerHandle::list_tools`].
    ///
    /// # Errors
    /// As [`McpServerHandle::list_tools`].
    fn list_tools(&self) -> BoxFuture<'_, Result<Vec<McpToolInfo>, McpError>> {
        Box::pin(self.handle().list_tools())
    }

    /// Calls a tool with the default call timeout. See
    /// [`McpServerHandle::call_tool`].
    ///
    /// # Errors
    /// As [`McpServerHandle::call_tool`].
    fn call_tool<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
    ) -> BoxFuture<'a, Result<ToolResult, McpError>> {
        Box::pin(self.handle().call_tool(tool, arguments))
    }

    /// Calls a tool with its own timeout. See
    /// [`McpServerHandle::call_tool_with_timeout`].
    ///
    /// # Errors
    /// As [`McpServerHandle::call_tool`].
    fn call_tool_with_timeout<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ToolResult, McpError>> {
        Box::pin(
            self.handle()
                .call_tool_with_timeout(tool, arguments, timeout),
        )
    }

    /// Closes the connection. See [`McpServerHandle::cleanup`].
    ///
    /// # Errors
    /// None today; the `Result` leaves room for transports whose teardown
    /// can fail.
    fn cleanup(&self) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(self.handle().cleanup())
    }
}
