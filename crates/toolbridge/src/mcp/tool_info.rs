//! [`McpToolInfo`]: a tool as an MCP server lists it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolbridge_core::{ToolAnnotations, ToolSpec, normalize_input_schema, validate_tool_name};

/// One tool from a server's `tools/list` result (MCP specification
/// 2025-11-25, "Tools" → "Listing Tools"), with the server's schemas kept
/// exactly as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolInfo {
    /// The tool's name on the server (before any prefix).
    pub name: String,
    /// A human-readable title, if the server gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The description, if the server gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of the arguments, as sent (an object).
    pub input_schema: Value,
    /// The JSON Schema of `structuredContent`, if declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "ToolAnnotations::is_empty")]
    pub annotations: ToolAnnotations,
}

impl McpToolInfo {
    /// Reads one entry of a `tools/list` result, or skips it with a warning
    /// naming the server and tool when it cannot be used: no name, a name
    /// that breaks the MCP tool-name rule, or an input schema that is not a
    /// JSON object.
    pub(crate) fn from_wire(server: &str, item: &Value) -> Option<Self> {
        let Some(name) = item.get("name").and_then(Value::as_str) else {
            tracing::warn!(server, entry = %truncate(item), "skipping a tool without a name");
            return None;
        };
        if let Err(error) = validate_tool_name(name) {
            tracing::warn!(server, tool = name, %error, "skipping a tool with an unusable name");
            return None;
        }
        let input_schema = item.get("inputSchema").cloned().unwrap_or(Value::Null);
        if !input_schema.is_object() {
            tracing::warn!(
                server, tool = name, schema = %truncate(&input_schema),
                "skipping a tool whose inputSchema is not a JSON object"
            );
            return None;
        }
        let text = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(Self {
            name: name.to_owned(),
            title: text("title").or_else(|| {
                item.pointer("/annotations/title")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
            description: text("description"),
            input_schema,
            output_schema: item.get("outputSchema").filter(|s| s.is_object()).cloned(),
            annotations: item
                .get("annotations")
                .and_then(|a| serde_json::from_value(a.clone()).ok())
                .unwrap_or_default(),
        })
    }

    /// The tool as a [`ToolSpec`] named `exposed_name`: the input schema
    /// normalised only where something is missing (`type: "object"`,
    /// `properties: {}`), everything else (`$defs`, `$ref`, `anyOf`,
    /// defaults) kept intact.
    pub fn to_spec(&self, exposed_name: impl Into<String>) -> ToolSpec {
        let parameters =
            normalize_input_schema(&self.input_schema).unwrap_or_else(|| self.input_schema.clone());
        ToolSpec {
            name: exposed_name.into(),
            title: self.title.clone(),
            description: self.description.clone().unwrap_or_default(),
            parameters,
            output_schema: self.output_schema.clone(),
            annotations: self.annotations.clone(),
        }
    }
}

fn truncate(value: &Value) -> String {
    let mut text = value.to_string();
    if text.len() > 200 {
        let mut end = 200;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unusable_tools_are_skipped() {
        assert!(McpToolInfo::from_wire("s", &json!({"name": "a", "inputSchema": "x"})).is_none());
        assert!(McpToolInfo::from_wire("s", &json!({"name": "", "inputSchema": {}})).is_none());
        assert!(McpToolInfo::from_wire("s", &json!({"inputSchema": {}})).is_none());
        assert!(McpToolInfo::from_wire("s", &json!({"name": "a b", "inputSchema": {}})).is_none());
    }

    #[test]
    fn fields_are_read_and_schema_kept() {
        let info = McpToolInfo::from_wire(
            "s",
            &json!({
                "name": "read_file", "title": "Read", "description": "Reads.",
                "inputSchema": {"type": "object"},
                "annotations": {"readOnlyHint": true}
            }),
        )
        .unwrap();
        assert_eq!(info.input_schema, json!({"type": "object"}));
        assert_eq!(info.annotations.read_only_hint, Some(true));
        let spec = info.to_spec("fs__read_file");
        assert_eq!(spec.name, "fs__read_file");
        assert_eq!(spec.parameters, json!({"type": "object", "properties": {}}));
        assert_eq!(spec.title.as_deref(), Some("Read"));
    }
}
