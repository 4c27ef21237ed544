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
