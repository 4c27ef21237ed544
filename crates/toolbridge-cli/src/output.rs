//! What goes to stdout: the tool table, a result's content as text, and
//! JSON. Functions take any writer so they can be tested in memory.

use std::io::{self, Write};

use serde::Serialize;
use toolbridge::{Content, ToolResult, ToolSpec};

/// The width the table is fitted to: `COLUMNS` when set, else 80.
pub fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&c: &usize| c > 0)
        .unwrap_or(80)
}

/// The name column never grows past this; longer names push their
/// description right instead.
const MAX_NAME_COLUMN: usize = 40;

/// A description is never cut shorter than this, however narrow the width.
const MIN_DESCRIPTION: usize = 20;

/// Writes one line per tool: the name, padded to a column, then the
/// description on one line, cut with `…` to fit `width` characters.
pub fn write_tool_table(out: &mut impl Write, specs: &[ToolSpec], width: usize) -> io::Result<()> {
    let column = specs
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0)
        .min(MAX_NAME_COLUMN);
    for spec in specs {
        let room = width
            .saturating_sub(column.max(spec.name.chars().count()) + 2)
            .max(MIN_DESCRIPTION);
        let description = truncate(&one_line(&spec.description), room);
        let line = format!("{:<column$}  {description}", spec.name);
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Collapses all whitespace, newlines included, into single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cuts `text` to at most `max` characters, ending with `…` when cut.
fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// Writes a result for people: every text item as is, a one-line
/// placeholder for anything else, and the structured content as JSON when
/// there is no content at all.
pub fn write_result_text(out: &mut impl Write, result: &ToolResult) -> io::Result<()> {
    for item in &result.content {
        match item.as_text() {
            Some(text) if text.ends_with('\n') => write!(out, "{text}")?,
            Some(text) => writeln!(out, "{text}")?,
            None => writeln!(out, "{}", placeholder(item))?,
        }
    }
    if result.content.is_empty()
        && let Some(structured) = &result.structured_content
    {
        write_json(out, structured)?;
    }
    Ok(())
}

/// A one-line stand-in for a content item that is not text, e.g.
/// `[image image/png, 1234 bytes base64]`.
fn placeholder(item: &Content) -> String {
    match item {
        Content::Text { text } => text.clone(),
        Content::Image { data, mime_type } => {
            format!("[image {mime_type}, {} bytes base64]", data.len())
        }
        Content::Audio { data, mime_type } => {
            format!("[audio {mime_type}, {} bytes base64]", data.len())
        }
        Content::ResourceLink { uri, mime_type, .. } => match mime_type {
            Some(mime) => format!("[resource link {uri} {mime}]"),
            None => format!("[resource link {uri}]"),
        },
        Content::Resource { resource } => {
            let mime = resource
                .mime_type
                .as_deref()
                .map(|m| format!(" {m}"))
                .unwrap_or_default();
            match (&resource.text, &resource.blob) {
                (Some(text), _) => format!(
                    "[resource {}{mime}, {} bytes text]",
                    resource.uri,
                    text.len()
                ),
                (None, Some(blob)) => format!(
                    "[resource {}{mime}, {} bytes base64]",
                    resource.uri,
                    blob.len()
                ),
                (None, None) => format!("[resource {}{mime}]", resource.uri),
            }
        }
        // `Content` may grow new kinds; name the kind from its wire form.
        other => {
            let kind = serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
                .unwrap_or_else(|| "unknown".to_owned());
            format!("[{kind} content]")
        }
    }
}

/// Writes `value` as pretty JSON and a newline.
pub fn write_json(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolbridge::EmbeddedResource;

    fn render(result: &ToolResult) -> String {
        let mut out = Vec::new();
        write_result_text(&mut out, result).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn table_pads_names_and_cuts_long_descriptions() {
        let specs = [
            ToolSpec::new("echo", "Echoes\n  the message.", json!({})),
            ToolSpec::new("a_longer_name", "x".repeat(200), json!({})),
        ];
        let mut out = Vec::new();
        write_tool_table(&mut out, &specs, 40).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines[0], "echo           Echoes the message.");
        assert!(lines[1].starts_with("a_longer_name  xxx"));
        assert!(lines[1].ends_with('…'));
        assert_eq!(lines[1].chars().count(), 40);
    }

    #[test]
    fn table_row_without_description_has_no_trailing_space() {
        let mut out = Vec::new();
        write_tool_table(&mut out, &[ToolSpec::new("t", "", json!({}))], 80).unwrap();
        assert_eq!(out, b"t\n");
    }

    #[test]
    fn text_items_print_as_is_and_others_as_placeholders() {
        let result = ToolResult {
            content: vec![
                Content::text("first"),
                Content::Image {
                    data: "AAAA".into(),
                    mime_type: "image/png".into(),
                },
                Content::Resource {
                    resource: EmbeddedResource {
                        uri: "file:///r".into(),
                        mime_type: Some("text/plain".into()),
                        text: Some("hi".into()),
                        blob: None,
                    },
                },
                Content::ResourceLink {
                    uri: "file:///l".into(),
                    name: "l".into(),
                    title: None,
                    description: None,
                    mime_type: None,
                    size: None,
                },
                Content::text("last\n"),
            ],
            ..ToolResult::default()
        };
        assert_eq!(
            render(&result),
            "first\n[image image/png, 4 bytes base64]\n[resource file:///r text/plain, 2 bytes text]\n[resource link file:///l]\nlast\n"
        );
    }

    #[test]
    fn structured_content_prints_when_there_is_no_content() {
        let result = ToolResult {
            structured_content: Some(json!({"sum": 3})),
            ..ToolResult::default()
        };
        assert_eq!(render(&result), "{\n  \"sum\": 3\n}\n");
    }
}
