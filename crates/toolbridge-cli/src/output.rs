//! What goes to stdout: the tool tables, the servers table, a result's
//! content as text, and JSON. Functions take any writer so they can be
//! tested in memory.

use std::{
    io::{self, Write},
    time::Duration,
};

use serde::Serialize;
use toolbridge::{Content, ToolResult, ToolSpec, hub::HubTool};

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

/// The server column of the hub tool table never grows past this.
const MAX_SERVER_COLUMN: usize = 24;

/// Writes one line per hub tool: the exposed name and the server, each
/// padded to a column, then the description on one line, cut with `…` to
/// fit `width` characters.
pub fn write_hub_tool_table(
    out: &mut impl Write,
    tools: &[HubTool],
    width: usize,
) -> io::Result<()> {
    let widest = |f: fn(&HubTool) -> &str, cap: usize| {
        tools
            .iter()
            .map(|t| f(t).chars().count())
            .max()
            .unwrap_or(0)
            .min(cap)
    };
    let name_column = widest(|t| &t.exposed, MAX_NAME_COLUMN);
    let server_column = widest(|t| &t.server, MAX_SERVER_COLUMN);
    for tool in tools {
        let used = name_column.max(tool.exposed.chars().count())
            + server_column.max(tool.server.chars().count())
            + 4;
        let room = width.saturating_sub(used).max(MIN_DESCRIPTION);
        let description = truncate(&one_line(&tool.spec.description), room);
        let line = format!(
            "{:<name_column$}  {:<server_column$}  {description}",
            tool.exposed, tool.server
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// One hub tool in `tools --json` (hub mode).
#[derive(Debug, Serialize)]
pub struct HubToolJson<'a> {
    /// The name it is called by.
    pub exposed: &'a str,
    /// The server it belongs to.
    pub server: &'a str,
    /// The server's own name for it.
    pub tool: &'a str,
    /// Its spec under the exposed name.
    pub spec: &'a ToolSpec,
}

impl<'a> From<&'a HubTool> for HubToolJson<'a> {
    fn from(tool: &'a HubTool) -> Self {
        Self {
            exposed: &tool.exposed,
            server: &tool.server,
            tool: &tool.tool,
            spec: &tool.spec,
        }
    }
}

/// One row of the `servers` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerRow {
    /// The server's name.
    pub name: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// `ready`, `failed`, `disabled`….
    pub state: String,
    /// Tools exposed, when connected.
    pub tools: Option<usize>,
    /// How long the connect took, when it was tried.
    pub startup: Option<Duration>,
    /// The first line of the error, when it failed.
    pub error: Option<String>,
}

/// Writes the `servers` table: a header, then one row per server with
/// every column but the last (the error) padded.
pub fn write_servers_table(out: &mut impl Write, rows: &[ServerRow]) -> io::Result<()> {
    let header = ["NAME", "TRANSPORT", "STATE", "TOOLS", "STARTUP", "ERROR"];
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|row| {
            [
                clean(&row.name),
                row.transport.clone(),
                row.state.clone(),
                row.tools.map_or_else(|| "-".to_owned(), |n| n.to_string()),
                row.startup
                    .map_or_else(|| "-".to_owned(), |d| format!("{} ms", d.as_millis())),
                row.error.as_deref().map(clean).unwrap_or_default(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let header = header.map(str::to_owned);
    for row in std::iter::once(&header).chain(&cells) {
        let mut line = String::new();
        for (index, (cell, width)) in row.iter().zip(widths).enumerate() {
            match index {
                // Numbers are right-aligned.
                3 | 4 => line.push_str(&format!("{cell:>width$}  ")),
                5 => line.push_str(cell),
                _ => line.push_str(&format!("{cell:<width$}  ")),
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// `text` without control characters (a server name or error cannot
/// rewrite the terminal).
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Collapses all whitespace, newlines included, into single spaces, and
/// turns control characters (a server's ANSI escapes) into spaces so a
/// description cannot rewrite the terminal.
fn one_line(text: &str) -> String {
    let visible: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    visible.split_whitespace().collect::<Vec<_>>().join(" ")
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
    fn escape_sequences_in_descriptions_never_reach_the_terminal() {
        let specs = [ToolSpec::new(
            "t",
            "d\u{1b}[31mred\u{1b}[0m\rline2",
            json!({}),
        )];
        let mut out = Vec::new();
        write_tool_table(&mut out, &specs, 80).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(text.contains("d [31mred [0m line2"), "{text:?}");
    }

    #[test]
    fn servers_table_aligns_columns_and_leaves_blanks_as_dashes() {
        let rows = [
            ServerRow {
                name: "one".into(),
                transport: "stdio".into(),
                state: "ready".into(),
                tools: Some(12),
                startup: Some(Duration::from_millis(35)),
                error: None,
            },
            ServerRow {
                name: "broken".into(),
                transport: "stdio".into(),
                state: "failed".into(),
                tools: None,
                startup: Some(Duration::from_millis(1234)),
                error: Some("could not start `x`".into()),
            },
        ];
        let mut out = Vec::new();
        write_servers_table(&mut out, &rows).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "NAME    TRANSPORT  STATE   TOOLS  STARTUP  ERROR\n\
             one     stdio      ready      12    35 ms\n\
             broken  stdio      failed      -  1234 ms  could not start `x`\n"
        );
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
