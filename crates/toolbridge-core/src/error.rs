//! Errors of the tool core.

/// A boxed error that can cross threads; used for the source of a failed call.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a tool could not be registered or called.
///
/// A tool that ran and *reported* a failure is not an error: it is an `Ok`
/// [`ToolResult`](crate::ToolResult) with `is_error` set (MCP specification
/// 2025-11-25, "Tools" → "Error Handling"). `ToolError` is for the failures
/// around the tool: bad arguments, an unknown name, a transport or protocol
/// failure of a bridged tool.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments did not match the tool's parameters.
    #[error("invalid arguments for tool '{tool}': {message}")]
    InvalidArguments {
        /// The tool that rejected the arguments.
        tool: String,
        /// What is wrong, naming the field where known.
        message: String,
    },

    /// No tool of that name is registered.
    #[error("no tool named '{name}' (available: {})", list_or_none(.available))]
    NotFound {
        /// The requested name.
        name: String,
        /// The names that are registered, sorted.
        available: Vec<String>,
    },

    /// A tool with that name is already registered.
    #[error("a tool named '{name}' is already registered; pick another name or a prefix")]
    DuplicateName {
        /// The duplicated name.
        name: String,
    },

    /// The name is not a valid tool name.
    #[error("invalid tool name {name:?}: {reason}")]
    InvalidName {
        /// The rejected name.
        name: String,
        /// Which rule it breaks.
        reason: String,
    },

    /// The call failed outside the tool's own logic (transport, protocol,
    /// timeout, closed server, or a native handler's own `Err`).
    ///
    /// The source carries the detail; bridged MCP tools put a
    /// `toolbridge::mcp::McpError` there, which callers may downcast to.
    #[error("tool '{tool}' failed: {source}")]
    Call {
        /// The tool that was called.
        tool: String,
        /// The underlying error.
        #[source]
        source: BoxError,
    },
}

impl ToolError {
    /// Wraps any error as a [`ToolError::Call`] for `tool`.
    pub fn call(tool: impl Into<String>, source: impl Into<BoxError>) -> Self {
        Self::Call {
            tool: tool.into(),
            source: source.into(),
        }
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}
