//! The tool abstraction of toolbridge, with no MCP or network dependency.
//!
//! A *tool* is something an agent can call: it has a [`ToolSpec`] (name,
//! description, JSON Schema of its arguments) and an async `call` that takes
//! JSON arguments and returns a [`ToolResult`]. Native Rust tools and tools
//! bridged from MCP servers (in the `toolbridge` crate) share this interface,
//! so an agent loop can hold both in one [`ToolRegistry`].
//!
//! The result and content types mirror the MCP `CallToolResult`
//! (MCP specification 2025-11-25, "Tools" → "Tool Result"): a tool that
//! *reports* a failure returns `Ok` with [`ToolResult::is_error`] set; only
//! argument, protocol, transport and timeout failures are `Err`.
//!
//! # Layout
//! - [`spec`]: [`ToolSpec`] and [`ToolAnnotations`], with export to OpenAI
//!   function calling and Anthropic tool use JSON.
//! - [`result`]: [`ToolResult`] and [`Content`] (text, image, audio,
//!   resource link, embedded resource).
//! - [`tool`]: the object-safe async [`Tool`] trait.
//! - [`function`]: [`FunctionTool`], a tool from an async closure or a typed
//!   handler whose argument schema is generated with `schemars`.
//! - [`registry`]: [`ToolRegistry`], named tools with lookup and dispatch.
//! - [`filter`]: [`ToolFilter`], the allow / block / predicate filter.
//! - [`error`]: the [`ToolError`] type.
//!
//! # Examples
//! ```
//! use toolbridge_core::{FunctionTool, ToolRegistry, ToolResult};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct AddArgs {
//!     /// First addend.
//!     a: i64,
//!     /// Second addend.
//!     b: i64,
//! }
//!
//! # tokio_test_block_on(async {
//! let mut registry = ToolRegistry::new();
//! registry.register(FunctionTool::from_typed("add", "Add two integers.", |args: AddArgs| async move {
//!     Ok(ToolResult::text((args.a + args.b).to_string()))
//! }))?;
//! let result = registry.call("add", serde_json::json!({"a": 2, "b": 3})).await?;
//! assert_eq!(result.text_content(), "5");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod error;
pub mod filter;
pub mod function;
pub mod registry;
pub mod result;
pub mod spec;
pub mod tool;

pub use error::{BoxError, ToolError};
pub use filter::ToolFilter;
pub use function::FunctionTool;
pub use registry::{ToolRegistry, validate_tool_name};
pub use result::{Content, EmbeddedResource, ToolResult};
pub use spec::{ToolAnnotations, ToolSpec, normalize_input_schema};
pub use tool::{BoxFuture, Tool};
