//! [`ToolRegistry`]: named tools with lookup and dispatch.

use std::{collections::HashMap, sync::Arc};

use serde_json::Value;

use crate::{Tool, ToolError, ToolResult, ToolSpec};

/// The longest tool name accepted, in characters (MCP specification
/// 2025-11-25, "Tools" → "Tool Names": 1 to 128 characters).
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// Checks that `name` is a valid tool name: 1 to 128 characters, each an
/// ASCII letter, digit, `_`, `-` or `.` (MCP specification 2025-11-25,
/// "Tools" → "Tool Names").
///
/// Note that OpenAI function calling accepts at most 64 characters and no
/// `.`; keep names within that when exporting to it.
///
/// # Errors
/// [`ToolError::InvalidName`] naming the rule the name breaks.
pub fn validate_tool_name(name: &str) -> Result<(), ToolError> {
    let invalid = |reason: String| ToolError::InvalidName {
        name: name.to_owned(),
        reason,
    };
    if name.is_empty() {
        return Err(invalid("a tool name must not be empty".to_owned()));
    }
    if name.len() > MAX_TOOL_NAME_LEN {
        return Err(invalid(format!(
            "a tool name has at most {MAX_TOOL_NAME_LEN} characters, this one has {}",
            name.chars().count()
        )));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(invalid(format!(
            "character {bad:?} is not allowed; use ASCII letters, digits, '_', '-' and '.'"
        )));
    }
    Ok(())
}

/// A set of uniquely named tools, native and bridged alike, kept in
/// registration order.
///
/// An agent loop gives the model [`ToolRegistry::specs`] (or the OpenAI /
/// Anthropic JSON forms) and dispatches the model's calls with
/// [`ToolRegistry::call`].
///
/// # Examples
/// ```
/// use toolbridge_core::{FunctionTool, ToolRegistry, ToolResult, ToolSpec};
/// let mut registry = ToolRegistry::new();
/// registry.register(FunctionTool::new(
///     ToolSpec::new("ping", "Answer pong.", serde_json::json!({"type": "object", "properties": {}})),
///     |_| async { Ok(ToolResult::text("pong")) },
/// ))?;
/// assert!(registry.get("ping").is_some());
/// assert_eq!(registry.openai_tools().len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    index: HashMap<String, usize>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `tool` under its spec's name.
    ///
    /// # Errors
    /// [`ToolError::InvalidName`] for a name that breaks
    /// [`validate_tool_name`]; [`ToolError::DuplicateName`] when the name is
    /// taken. The registry is unchanged on error.
    pub fn register(&mut self, tool: impl Tool + 'static) -> Result<(), ToolError> {
        self.register_arc(Arc::new(tool))
    }

    /// Registers a shared tool; see [`ToolRegistry::register`].
    ///
    /// # Errors
    /// As [`ToolRegistry::register`].
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Result<(), ToolError> {
        let name = tool.spec().name.clone();
        validate_tool_name(&name)?;
        if self.index.contains_key(&name) {
            return Err(ToolError::DuplicateName { name });
        }
        self.index.insert(name, self.tools.len());
        self.tools.push(tool);
        Ok(())
    }

    /// Registers every tool of `tools`, stopping at the first failure.
    ///
    /// # Errors
    /// As [`ToolRegistry::register`]; tools before the failing one stay
    /// registered.
    pub fn register_all<T: Tool + 'static>(
        &mut self,
        tools: impl IntoIterator<Item = T>,
    ) -> Result<(), ToolError> {
        tools.into_iter().try_for_each(|tool| self.register(tool))
    }

    /// Removes the tool named `name`, returning it.
    pub fn remove(&mut self, name: &str) -> Option<Arc<dyn Tool>> {
        let position = self.index.remove(name)?;
        let tool = self.tools.remove(position);
        for slot in self.index.values_mut() {
            if *slot > position {
                *slot -= 1;
            }
        }
        Some(tool)
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.index.get(name).map(|&i| Arc::clone(&self.tools[i]))
    }

    /// Whether a tool named `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// The tools in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.iter()
    }

    /// The names in registration order.
    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.spec().name.clone()).collect()
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The specs in registration order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec().clone()).collect()
    }

    /// Every spec as an OpenAI function-calling tool
    /// ([`ToolSpec::to_openai_tool`]).
    pub fn openai_tools(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|t| t.spec().to_openai_tool())
            .collect()
    }

    /// Every spec as an Anthropic tool ([`ToolSpec::to_anthropic_tool`]).
    pub fn anthropic_tools(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|t| t.spec().to_anthropic_tool())
            .collect()
    }

    /// Calls the tool named `name` with `arguments`.
    ///
    /// # Errors
    /// [`ToolError::NotFound`] (listing the registered names) when no tool
    /// has that name; otherwise whatever the tool's call returns.
    pub async fn call(&self, name: &str, arguments: Value) -> Result<ToolResult, ToolError> {
        let Some(tool) = self.get(name) else {
            let mut available = self.names();
            available.sort();
            return Err(ToolError::NotFound {
                name: name.to_owned(),
                available,
            });
        };
        tool.call(arguments).await
    }
}

impl<T: Tool + 'static> Extend<T> for ToolRegistry {
    /// Registers each tool, skipping (not failing on) invalid or duplicate
    /// names. Use [`ToolRegistry::register_all`] to get the error instead.
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for tool in iter {
            let _ = self.register(tool);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FunctionTool;
    use serde_json::json;

    fn tool(name: &str) -> FunctionTool {
        let reply = name.to_owned();
        FunctionTool::new(
            ToolSpec::new(name, "test", json!({"type": "object", "properties": {}})),
            move |_| {
                let reply = reply.clone();
                async move { Ok(ToolResult::text(reply)) }
            },
        )
    }

    #[test]
    fn duplicate_name_is_rejected_and_registry_unchanged() {
        let mut registry = ToolRegistry::new();
        registry.register(tool("a")).unwrap();
        let error = registry.register(tool("a")).unwrap_err();
        assert!(matches!(error, ToolError::DuplicateName { ref name } if name == "a"));
        assert_eq!(registry.len(), 1);
    }

    #[test]
    fn invalid_names_are_rejected_with_the_rule() {
        for (name, needle) in [
            ("", "empty"),
            ("has space", "' '"),
            ("ünï", "'ü'"),
            (&"x".repeat(129), "at most 128"),
        ] {
            let error = ToolRegistry::new().register(tool(name)).unwrap_err();
            assert!(error.to_string().contains(needle), "{name:?}: {error}");
        }
        assert!(validate_tool_name("fs__read_file.v2-x").is_ok());
    }

    #[tokio::test]
    async fn call_dispatches_by_name_and_lists_names_when_missing() {
        let mut registry = ToolRegistry::new();
        registry.register(tool("b")).unwrap();
        registry.register(tool("a")).unwrap();
        assert_eq!(
            registry.call("a", json!({})).await.unwrap().text_content(),
            "a"
        );
        let error = registry.call("zz", json!({})).await.unwrap_err();
        assert_eq!(error.to_string(), "no tool named 'zz' (available: a, b)");
    }

    #[test]
    fn remove_keeps_the_index_consistent() {
        let mut registry = ToolRegistry::new();
        registry
            .register_all([tool("a"), tool("b"), tool("c")])
            .unwrap();
        assert!(registry.remove("a").is_some());
        assert_eq!(registry.names(), ["b", "c"]);
        assert_eq!(registry.get("c").unwrap().spec().name, "c");
    }
}
