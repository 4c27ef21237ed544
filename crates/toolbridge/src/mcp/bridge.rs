//! [`mcp_server_to_function_tools`]: a server's tools as native tools.

use std::time::Duration;

use toolbridge_core::{FunctionTool, ToolError, ToolFilter, validate_tool_name};

use super::{McpError, McpServer};

/// How [`mcp_server_to_function_tools`] bridges a server's tools.
#[derive(Debug, Clone, Default)]
pub struct BridgeOptions {
    /// Which tools to keep; the filter sees the server's original name.
    pub tool_filter: Option<ToolFilter>,
    /// A prefix for exposed names: `fs` makes `read_file` into
    /// `fs__read_file`.
    pub name_prefix: Option<String>,
    /// A per-call timeout for the bridged tools; the server's call timeout
    /// when unset.
    pub call_timeout: Option<Duration>,
}

impl BridgeOptions {
    /// Sets the tool filter.
    pub fn with_tool_filter(mut self, filter: ToolFilter) -> Self {
        self.tool_filter = Some(filter);
        self
    }

    /// Sets the name prefix (joined to the tool name with `__`).
    pub fn with_name_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.name_prefix = Some(prefix.into());
        self
    }

    /// Sets the per-call timeout.
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }
}

/// Lists a connected server's tools and turns each into a [`FunctionTool`],
/// filtered and prefixed, ready for a
/// [`ToolRegistry`](toolbridge_core::ToolRegistry).
///
/// Mirrors the OpenAI Agents SDK's `MCPUtil.get_function_tools`: each tool
/// keeps the server's input schema (normalised only where `type` or
/// `properties` is missing), and calls go to the server under the original
/// name. Each bridged tool holds a handle to the server; after `cleanup()`
/// its calls fail with a "server closed" error
/// ([`McpError::Closed`] inside [`ToolError::Call`]).
///
/// A tool whose prefixed name breaks the tool-name rule (e.g. longer than
/// 128 characters) is skipped with a warning naming it.
///
/// # Errors
/// Whatever [`McpServer::list_tools`] returns.
pub async fn mcp_server_to_function_tools<S: McpServer + ?Sized>(
    server: &S,
    options: BridgeOptions,
) -> Result<Vec<FunctionTool>, McpError> {
    let listed = server.list_tools().await?;
    let mut tools = Vec::with_capacity(listed.len());
    for info in listed {
        if let Some(filter) = &options.tool_filter
            && !filter.passes(&info.to_spec(info.name.clone()))
        {
            continue;
        }
        let exposed = match &options.name_prefix {
            Some(prefix) => format!("{prefix}__{}", info.name),
            None => info.name.clone(),
        };
        if let Err(error) = validate_tool_name(&exposed) {
            tracing::warn!(server = server.name(), tool = %info.name, %error, "skipping a tool whose exposed name is unusable");
            continue;
        }
        let handle = server.handle().clone();
        let timeout = options
            .call_timeout
            .unwrap_or(handle.options().call_timeout);
        let original = info.name.clone();
        let spec = info.to_spec(exposed.clone());
        tools.push(FunctionTool::new(spec, move |arguments| {
            let handle = handle.clone();
            let original = original.clone();
            let exposed = exposed.clone();
            async move {
                handle
                    .call_tool_with_timeout(&original, arguments, timeout)
                    .await
                    .map_err(|error| ToolError::call(exposed, error))
            }
        }));
    }
    Ok(tools)
}
