//! [`ToolResult`] and [`Content`]: what a tool call returns.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A resource embedded in a tool result: text or base64 `blob` content at a URI.
///
/// MCP specification 2025-11-25, "Tools" → "Embedded Resources".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    /// The resource URI.
    pub uri: String,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents (for text resources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64-encoded binary contents (for blob resources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// One content item of a tool result, in the MCP wire shape
/// (`{"type": "text", "text": ...}` and so on; MCP specification
/// 2025-11-25, "Tools" → "Tool Result").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    #[serde(rename_all = "camelCase")]
    Image {
        /// Base64-encoded image bytes.
        data: String,
        /// The MIME type, e.g. `image/png`.
        mime_type: String,
    },
    /// Audio, base64-encoded.
    #[serde(rename_all = "camelCase")]
    Audio {
        /// Base64-encoded audio bytes.
        data: String,
        /// The MIME type, e.g. `audio/wav`.
        mime_type: String,
    },
    /// A link to a resource the client may read.
    #[serde(rename_all = "camelCase")]
    ResourceLink {
        /// The resource URI.
        uri: String,
        /// The resource name.
        name: String,
        /// A human-readable title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// A description.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// The MIME type, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The size in bytes, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
    },
    /// An embedded resource.
    Resource {
        /// The resource.
        resource: EmbeddedResource,
    },
}

impl Content {
    /// A text content item.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// The text of a `Text` item, `None` for other kinds.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// The result of a tool call, as an MCP `CallToolResult`.
///
/// `is_error: true` means the tool ran and reported a failure (the model
/// should see it and may retry); it is still an `Ok` result. Protocol,
/// transport, timeout and argument failures are
/// [`ToolError`](crate::ToolError)s instead.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// Content items, in the order the tool produced them.
    pub content: Vec<Content>,
    /// Structured result (`structuredContent`), if the tool returned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool reported a failure (`isError`).
    #[serde(default)]
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result with one text item.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            ..Self::default()
        }
    }

    /// A reported failure (`is_error: true`) with one text item.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(message)],
            structured_content: None,
            is_error: true,
        }
    }

    /// A successful result carrying `value` as structured content and, for
    /// clients that read only text, as its JSON text.
    pub fn structured(value: Value) -> Self {
        Self {
            content: vec![Content::text(value.to_string())],
            structured_content: Some(value),
            is_error: false,
        }
    }

    /// All text items joined with newlines (non-text items are skipped).
    pub fn text_content(&self) -> String {
        self.content
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl From<String> for ToolResult {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&str> for ToolResult {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_uses_mcp_wire_shape() {
        let items = vec![
            Content::text("a"),
            Content::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
            },
            Content::ResourceLink {
                uri: "file:///x".into(),
                name: "x".into(),
                title: None,
                description: None,
                mime_type: None,
                size: None,
            },
        ];
        assert_eq!(
            serde_json::to_value(&items).unwrap(),
            json!([
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///x", "name": "x"}
            ])
        );
    }

    #[test]
    fn text_content_joins_text_items_only() {
        let result = ToolResult {
            content: vec![
                Content::text("one"),
                Content::Audio {
                    data: "AA".into(),
                    mime_type: "audio/wav".into(),
                },
                Content::text("two"),
            ],
            ..ToolResult::default()
        };
        assert_eq!(result.text_content(), "one\ntwo");
    }
}
