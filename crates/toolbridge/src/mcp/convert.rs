//! Conversion of rmcp's `CallToolResult` into toolbridge's [`ToolResult`].

use serde_json::Value;
use toolbridge_core::{Content, ToolResult};

/// Converts a decoded `CallToolResult`, keeping every content item in order.
pub(crate) fn tool_result(result: rmcp::model::CallToolResult) -> ToolResult {
    match serde_json::to_value(&result) {
        Ok(value) => tool_result_from_value(value),
        Err(_) => ToolResult::error("the server's result could not be read"),
    }
}

/// Converts a `CallToolResult` in its JSON form. Content items of a kind
/// toolbridge does not know are kept as text holding their JSON, so nothing
/// is lost.
pub(crate) fn tool_result_from_value(value: Value) -> ToolResult {
    let content = value
        .get("content")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(content_item).collect())
        .unwrap_or_default();
    ToolResult {
        content,
        structured_content: value.get("structuredContent").cloned(),
        is_error: value
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

/// Converts a `CallToolResult` straight from its JSON text (the stdio fast
/// path), falling back to the lenient [`tool_result_from_value`] when a
/// content item is of a kind toolbridge does not know.
///
/// # Errors
/// A description when the text is not a JSON object, or when the result is
/// not complete (a 2026-era `input_required` or task result).
pub(crate) fn tool_result_from_raw(raw: &str) -> Result<ToolResult, String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Wire {
        #[serde(default)]
        content: Vec<Content>,
        #[serde(default)]
        structured_content: Option<Value>,
        #[serde(default)]
        is_error: Option<bool>,
        #[serde(default)]
        result_type: Option<String>,
    }
    let (result, result_type) = match serde_json::from_str::<Wire>(raw) {
        Ok(wire) => (
            ToolResult {
                content: wire.content,
                structured_content: wire.structured_content,
                is_error: wire.is_error.unwrap_or(false),
            },
            wire.result_type,
        ),
        Err(_) => {
            let value: Value = serde_json::from_str(raw)
                .map_err(|e| format!("the result is not valid JSON: {e}"))?;
            if !value.is_object() {
                return Err(format!("the result is not a JSON object: {value}"));
            }
            let result_type = value
                .get("resultType")
                .and_then(Value::as_str)
                .map(str::to_owned);
            (tool_result_from_value(value), result_type)
        }
    };
    match result_type.as_deref() {
        None | Some("complete") => Ok(result),
        Some(other) => Err(format!(
            "the server answered with a `{other}` result, which toolbridge does not support yet"
        )),
    }
}

fn content_item(item: &Value) -> Content {
    serde_json::from_value(item.clone()).unwrap_or_else(|_| Content::text(item.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn all_content_kinds_survive_in_order() {
        let result = tool_result_from_value(json!({
            "content": [
                {"type": "text", "text": "first"},
                {"type": "image", "data": "iVBO", "mimeType": "image/png"},
                {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///r", "mimeType": "text/plain", "text": "hi"}},
                {"type": "resource_link", "uri": "file:///l", "name": "l"},
                {"type": "hologram", "x": 1}
            ],
            "structuredContent": {"a": 1},
            "isError": true
        }));
        assert!(result.is_error);
        assert_eq!(result.structured_content, Some(json!({"a": 1})));
        let kinds: Vec<_> = result
            .content
            .iter()
            .map(|c| serde_json::to_value(c).unwrap()["type"].clone())
            .collect();
        assert_eq!(
            kinds,
            [
                "text",
                "image",
                "audio",
                "resource",
                "resource_link",
                "text"
            ]
        );
    }
}
