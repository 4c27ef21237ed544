//! [`ToolSpec`]: what a model sees of a tool.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Hints about a tool's behaviour, as in the MCP `ToolAnnotations`
/// (MCP specification 2025-11-25, "Tools" → "Tool Annotations").
///
/// All hints are optional and untrusted: a client must not rely on them for
/// safety decisions when the tool comes from an untrusted server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is set.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// The description of a tool: name, description, and the JSON Schema of its
/// arguments, as an LLM API and an MCP `tools/list` result carry it.
///
/// `parameters` is a JSON Schema object (draft 2020-12, as MCP 2025-11-25
/// specifies for `inputSchema`); it is kept as given, including `$defs` and
/// `$ref`.
///
/// # Examples
/// ```
/// use toolbridge_core::ToolSpec;
/// let spec = ToolSpec::new(
///     "echo",
///     "Echo a message back.",
///     serde_json::json!({"type": "object", "properties": {"message": {"type": "string"}}}),
/// );
/// assert_eq!(spec.to_openai_tool()["function"]["name"], "echo");
/// assert_eq!(spec.to_anthropic_tool()["input_schema"]["type"], "object");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    /// The name a model calls the tool by.
    pub name: String,
    /// A human-readable title, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model. Empty when the source gave none.
    #[serde(default)]
    pub description: String,
    /// JSON Schema (an object) of the arguments.
    pub parameters: Value,
    /// JSON Schema of the structured result (`structuredContent`), if declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "ToolAnnotations::is_empty")]
    pub annotations: ToolAnnotations,
}

impl ToolSpec {
    /// A spec with a name, a description and a parameter schema; no title,
    /// output schema or annotations.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: description.into(),
            parameters,
            output_schema: None,
            annotations: ToolAnnotations::default(),
        }
    }

    /// Sets the title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the output schema.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the annotations.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// The spec as an OpenAI function-calling tool (Chat Completions `tools`
    /// entry): `{"type": "function", "function": {"name", "description",
    /// "parameters"}}`.
    pub fn to_openai_tool(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            }
        })
    }

    /// The spec as an Anthropic Messages API tool: `{"name", "description",
    /// "input_schema"}`.
    pub fn to_anthropic_tool(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "input_schema": self.parameters,
        })
    }
}

/// Normalises a tool's input schema without changing what it means.
///
/// Keeps everything the schema has (including `$defs`, `$ref`, `anyOf`,
/// defaults) and adds only what is missing for LLM APIs: `"type": "object"`
/// when no type is given, and `"properties": {}` on an object schema without
/// properties. Returns `None` when `schema` is not a JSON object (such a
/// schema is unusable).
///
/// Mirrors the normalisation of the OpenAI Agents SDK's MCP utilities, which
/// add `properties` for servers that send `{"type": "object"}` alone.
pub fn normalize_input_schema(schema: &Value) -> Option<Value> {
    let mut object: Map<String, Value> = schema.as_object()?.clone();
    if !object.contains_key("type") {
        object.insert("type".to_owned(), Value::String("object".to_owned()));
    }
    if object.get("type").and_then(Value::as_str) == Some("object")
        && !object.contains_key("properties")
    {
        object.insert("properties".to_owned(), Value::Object(Map::new()));
    }
    Some(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_schema_becomes_object_with_properties() {
        assert_eq!(
            normalize_input_schema(&json!({})),
            Some(json!({"type": "object", "properties": {}}))
        );
    }

    #[test]
    fn object_without_properties_gets_empty_properties() {
        assert_eq!(
            normalize_input_schema(&json!({"type": "object"})),
            Some(json!({"type": "object", "properties": {}}))
        );
    }

    #[test]
    fn refs_and_defs_are_kept_intact() {
        let schema = json!({
            "type": "object",
            "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}},
            "properties": {
                "a": {"$ref": "#/$defs/A"},
                "n": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
            },
            "required": ["a"]
        });
        assert_eq!(normalize_input_schema(&schema), Some(schema));
    }

    #[test]
    fn non_object_schema_is_unusable() {
        assert_eq!(normalize_input_schema(&json!("not-a-schema")), None);
        assert_eq!(normalize_input_schema(&json!(null)), None);
    }

    #[test]
    fn exports_openai_and_anthropic_shapes() {
        let spec = ToolSpec::new("t", "d", json!({"type": "object", "properties": {}}));
        assert_eq!(
            spec.to_openai_tool(),
            json!({"type": "function", "function": {"name": "t", "description": "d", "parameters": {"type": "object", "properties": {}}}})
        );
        assert_eq!(
            spec.to_anthropic_tool(),
            json!({"name": "t", "description": "d", "input_schema": {"type": "object", "properties": {}}})
        );
    }
}
