//! The JSON formats as written: `mcpServers` files (Claude Desktop, Claude
//! Code, Cursor) and VS Code's `mcp.json`, plus the JSONC leniency VS Code
//! allows.

use std::{collections::BTreeMap, fmt, marker::PhantomData};

use serde::{
    Deserialize, Deserializer,
    de::{MapAccess, Visitor},
};

/// A JSON object or TOML table kept in file order, with the keys that
/// appeared more than once (a JSON parser would otherwise keep the last
/// silently).
#[derive(Debug)]
pub(crate) struct Ordered<T> {
    pub(crate) entries: Vec<(String, T)>,
    pub(crate) duplicates: Vec<String>,
}

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            duplicates: Vec::new(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for OrderedVisitor<T> {
            type Value = Ordered<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of server names to server entries")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Ordered::default();
                while let Some((key, value)) = map.next_entry::<String, T>()? {
                    if out.entries.iter().any(|(k, _)| *k == key) {
                        out.duplicates.push(key);
                    } else {
                        out.entries.push((key, value));
                    }
                }
                Ok(out)
            }
        }

        deserializer.deserialize_map(OrderedVisitor(PhantomData))
    }
}

/// The top level of any JSON config: both keys are read, and the format
/// is told by which one is there.
#[derive(Debug, Deserialize)]
pub(crate) struct JsonFile {
    /// Claude Desktop, Claude Code, Cursor.
    #[serde(rename = "mcpServers", default)]
    pub(crate) mcp_servers: Option<Ordered<JsonServer>>,
    /// VS Code.
    #[serde(default)]
    pub(crate) servers: Option<Ordered<JsonServer>>,
    // VS Code's `inputs` are not read: toolbridge does not prompt, and
    // `${input:ID}` resolves from `TOOLBRIDGE_INPUT_<ID>` whether or not the
    // id is declared.
}

/// One server entry of either JSON format. Unknown keys are ignored: these
/// files are shared with other tools.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JsonServer {
    #[serde(rename = "type", alias = "transport")]
    pub(crate) kind: Option<String>,
    pub(crate) command: Option<String>,
    #[serde(default)]
    pub(crate) args: Vec<String>,
    #[serde(default)]
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) cwd: Option<String>,
    pub(crate) url: Option<String>,
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, String>,
    #[serde(default)]
    pub(crate) disabled: bool,
    /// VS Code's `envFile`: not read (reported in the log).
    pub(crate) env_file: Option<String>,
}

/// `text` with JSONC comments (`//`, `/* */`) and trailing commas turned
/// into spaces, so that strict JSON parsing accepts it and line / column
/// numbers stay those of the file.
pub(crate) fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    let mut in_string = false;
    // The last comma outside strings not yet followed by a value.
    let mut pending_comma: Option<usize> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    blank(&mut out, i);
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                for at in i..end {
                    blank(&mut out, at);
                }
                i = end;
                continue;
            }
            (b',', _) => pending_comma = Some(i),
            (b'}' | b']', _) => {
                if let Some(at) = pending_comma.take() {
                    out[at] = b' ';
                }
            }
            (b' ' | b'\t' | b'\r' | b'\n', _) => {}
            (b'"', _) => {
                in_string = true;
                pending_comma = None;
            }
            _ => pending_comma = None,
        }
        i += 1;
    }
    // Only ASCII bytes were replaced by spaces, and only outside strings
    // and never inside a multi-byte character (comment bytes are blanked
    // whole, including any UTF-8 in them), so the bytes stay valid UTF-8;
    // the lossy conversion never actually replaces anything.
    String::from_utf8_lossy(&out).into_owned()
}

/// Blanks one comment byte, keeping line breaks for line numbers.
fn blank(out: &mut [u8], at: usize) {
    if out[at] != b'\n' {
        out[at] = b' ';
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_become_spaces() {
        let text = "{\n  // note\n  \"a\": [1, 2,], /* x\n y */ \"b\": \"//not a comment,}\",\n}";
        let strict = strip_jsonc(text);
        assert_eq!(strict.lines().count(), text.lines().count());
        let value: serde_json::Value = serde_json::from_str(&strict).unwrap();
        assert_eq!(value["b"], "//not a comment,}");
        assert_eq!(value["a"], serde_json::json!([1, 2]));
    }

    #[test]
    fn escaped_quotes_do_not_end_strings() {
        let text = r#"{"a": "x\"//y", "b": 1,}"#;
        let value: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(value["a"], "x\"//y");
    }

    #[test]
    fn ordered_keeps_file_order_and_reports_duplicates() {
        let map: Ordered<u32> = serde_json::from_str(r#"{"z": 1, "a": 2, "z": 3}"#).unwrap();
        let keys: Vec<_> = map.entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["z", "a"]);
        assert_eq!(map.duplicates, ["z"]);
    }
}
