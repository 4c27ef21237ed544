//! [`FunctionTool`]: a tool made from an async function.

use std::{future::Future, sync::Arc};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{BoxFuture, Tool, ToolError, ToolResult, ToolSpec};

type Handler = dyn Fn(Value) -> BoxFuture<'static, Result<ToolResult, ToolError>> + Send + Sync;

/// A tool made from an async function: a [`ToolSpec`] plus a handler.
///
/// Build one from a closure over raw JSON with an explicit spec
/// ([`FunctionTool::new`]), or from a typed handler whose argument struct
/// derives `serde::Deserialize` and `schemars::JsonSchema`
/// ([`FunctionTool::from_typed`]); the parameter schema is then generated.
/// Bridged MCP tools are `FunctionTool`s too (see
/// `toolbridge::mcp::mcp_server_to_function_tools`), mirroring the OpenAI
/// Agents SDK, where MCP tools become `FunctionTool`s.
///
/// Cloning is cheap (the handler is shared).
///
/// # Examples
/// ```
/// use toolbridge_core::{FunctionTool, Tool, ToolResult, ToolSpec};
/// use serde_json::json;
///
/// let upper = FunctionTool::new(
///     ToolSpec::new("upper", "Upper-case a string.", json!({
///         "type": "object",
///         "properties": {"s": {"type": "string"}},
///         "required": ["s"]
///     })),
///     |args| async move {
///         let s = args["s"].as_str().unwrap_or_default().to_uppercase();
///         Ok(ToolResult::text(s))
///     },
/// );
/// assert_eq!(upper.spec().name, "upper");
/// ```
#[derive(Clone)]
pub struct FunctionTool {
    spec: ToolSpec,
    handler: Arc<Handler>,
}

impl std::fmt::Debug for FunctionTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionTool")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

impl FunctionTool {
    /// A tool from `spec` and an async handler taking the raw JSON arguments.
    pub fn new<F, Fut>(spec: ToolSpec, handler: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
    {
        Self {
            spec,
            handler: Arc::new(move |args| Box::pin(handler(args))),
        }
    }

    /// A tool from a typed handler. The parameter schema is generated from
    /// `A` with `schemars` (JSON Schema 2020-12, `$defs` kept); arguments are
    /// deserialized into `A` before the handler runs.
    ///
    /// Arguments that do not fit `A` fail with
    /// [`ToolError::InvalidArguments`] naming the field (e.g. ``field `b`:
    /// invalid type: string "x", expected i64``), and the handler is not run.
    /// `null` arguments are read as `{}`.
    pub fn from_typed<A, R, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        A: DeserializeOwned + schemars::JsonSchema + Send + 'static,
        R: Into<ToolResult>,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
    {
        let spec = ToolSpec::new(name, description, schema_for::<A>());
        let tool_name = spec.name.clone();
        let handler = Arc::new(handler);
        Self::new(spec, move |args| {
            let parsed = parse_arguments::<A>(&tool_name, args);
            let handler = Arc::clone(&handler);
            async move { handler(parsed?).await.map(Into::into) }
        })
    }

    /// The tool's spec.
    pub fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// Returns the tool with its spec changed by `f` (e.g. to rename it).
    pub fn map_spec(mut self, f: impl FnOnce(&mut ToolSpec)) -> Self {
        f(&mut self.spec);
        self
    }
}

impl Tool for FunctionTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, arguments: Value) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        (self.handler)(arguments)
    }
}

/// The JSON Schema of `A` as a parameter schema: an object schema without
/// the `$schema` and `title` keywords LLM APIs do not want.
fn schema_for<A: schemars::JsonSchema>() -> Value {
    let mut schema = schemars::schema_for!(A).to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    crate::spec::normalize_input_schema(&schema).unwrap_or(schema)
}

fn parse_arguments<A: DeserializeOwned>(tool: &str, args: Value) -> Result<A, ToolError> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    };
    serde_path_to_error::deserialize::<_, A>(args).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        let message = if path == "." {
            inner.to_string()
        } else {
            format!("field `{path}`: {inner}")
        };
        ToolError::InvalidArguments {
            tool: tool.to_owned(),
            message,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Inner {
        depth: u32,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Args {
        name: String,
        inner: Inner,
    }

    fn tool() -> FunctionTool {
        FunctionTool::from_typed("t", "test", |args: Args| async move {
            Ok::<_, ToolError>(format!("{} {}", args.name, args.inner.depth))
        })
    }

    #[tokio::test]
    async fn typed_tool_generates_object_schema() {
        let tool = tool();
        let schema = &tool.spec().parameters;
        assert_eq!(schema["type"], "object");
        assert!(schema["properties"]["name"].is_object());
        assert!(schema.get("$schema").is_none());
    }

    #[tokio::test]
    async fn typed_tool_calls_handler_with_parsed_arguments() {
        let result = tool()
            .call(json!({"name": "x", "inner": {"depth": 3}}))
            .await
            .unwrap();
        assert_eq!(result.text_content(), "x 3");
    }

    #[tokio::test]
    async fn bad_argument_error_names_the_nested_field() {
        let error = tool()
            .call(json!({"name": "x", "inner": {"depth": "deep"}}))
            .await
            .unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, ToolError::InvalidArguments { .. }));
        assert!(message.contains("inner.depth"), "{message}");
        assert!(message.contains("tool 't'"), "{message}");
    }

    #[tokio::test]
    async fn missing_field_is_named() {
        let error = tool()
            .call(json!({"inner": {"depth": 1}}))
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("missing field `name`"),
            "{error}"
        );
    }
}
