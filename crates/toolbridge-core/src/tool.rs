//! The [`Tool`] trait.

use std::{future::Future, pin::Pin};

use crate::{ToolError, ToolResult, ToolSpec};

/// A boxed, `Send` future, the return type of [`Tool::call`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Something an agent can call: a spec plus an async call with JSON arguments.
///
/// The trait is object-safe (`Arc<dyn Tool>` is how a
/// [`ToolRegistry`](crate::ToolRegistry) holds tools) and `Send + Sync`, so a
/// tool can be called from many tasks at once.
///
/// Mirrors the MCP `tools/call` contract (MCP specification 2025-11-25,
/// "Tools"): `arguments` is the JSON object the caller passes; the result is
/// a `CallToolResult`.
pub trait Tool: Send + Sync {
    /// The tool's name, description and parameter schema.
    fn spec(&self) -> &ToolSpec;

    /// Calls the tool with `arguments` (a JSON object; `null` is treated as
    /// `{}` by the implementations in this workspace).
    ///
    /// # Errors
    /// [`ToolError::InvalidArguments`] when the arguments do not fit the
    /// parameters; [`ToolError::Call`] for transport, protocol, timeout or
    /// handler failures. A tool that reports a failure returns `Ok` with
    /// [`ToolResult::is_error`] set.
    fn call(&self, arguments: serde_json::Value) -> BoxFuture<'_, Result<ToolResult, ToolError>>;
}

impl<T: Tool + ?Sized> Tool for std::sync::Arc<T> {
    fn spec(&self) -> &ToolSpec {
        (**self).spec()
    }

    fn call(&self, arguments: serde_json::Value) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        (**self).call(arguments)
    }
}
