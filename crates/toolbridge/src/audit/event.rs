//! What the audit log records: [`AuditEvent`] and its kinds.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::time::Timestamp;
use crate::config::mask::mask_args;
use crate::config::{is_secret_name, mask_secret};

/// Free text (error messages, reasons) is cut to this many characters.
pub const MAX_TEXT_CHARS: usize = 500;

/// Names (server, tool, transport, argument names) are cut to this many
/// characters.
const MAX_NAME_CHARS: usize = 128;

/// At most this many argument names are kept per call.
const MAX_ARGUMENT_NAMES: usize = 64;

/// One audit record: when it happened and what.
///
/// # JSON shape
/// The same in the JSON lines sinks, the SQLite `json` column and
/// `toolbridge audit --json`: one flat object with `timestamp` (RFC 3339,
/// UTC, milliseconds, see [`Timestamp`]), `kind`, and the kind's fields.
/// Optional fields are always present, as `null` when unset; new kinds or
/// fields may be added, existing ones keep their names and meaning.
///
/// ```json
/// {"timestamp":"2026-05-01T12:34:56.789Z","kind":"mcp_connect","server":"git","transport":"stdio","tool_count":12}
/// {"timestamp":"…","kind":"mcp_disconnect","server":"git","reason":"process_exit","exit_code":1,"detail":"stderr: …"}
/// {"timestamp":"…","kind":"mcp_restart","server":"git","attempt":2,"reason":"process exited with code 1"}
/// {"timestamp":"…","kind":"mcp_tool_call","server":"git","tool":"status","duration_ms":41,"outcome":"ok","argument_names":["repo_path"],"error":null}
/// {"timestamp":"…","kind":"audit_dropped","count":17}
/// ```
///
/// # Secrets
/// Events carry names, not values: a tool call records the names of its
/// top-level arguments only ([`AuditEvent::tool_call`]). Free text
/// (`detail`, `reason`, `error`) is cut to [`MAX_TEXT_CHARS`] characters
/// and `name=value` / `Name: value` pairs with secret-looking names are
/// masked when the event is recorded ([`AuditLog::record`]).
///
/// [`AuditLog::record`]: super::AuditLog::record
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEvent {
    /// When the event happened.
    pub timestamp: Timestamp,
    /// What happened.
    #[serde(flatten)]
    pub kind: AuditEventKind,
}

/// What an [`AuditEvent`] records; the serde tag is `kind`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuditEventKind {
    /// A server completed its handshake and its tools were listed.
    McpConnect {
        /// The server's configured name.
        server: String,
        /// `"stdio"`, `"http"` or `"sse"`.
        transport: String,
        /// How many tools it exposes (after filtering).
        tool_count: usize,
    },
    /// A server's connection ended.
    McpDisconnect {
        /// The server's configured name.
        server: String,
        /// Why it ended.
        reason: DisconnectReason,
        /// The child's exit code, for stdio servers that exited.
        #[serde(default)]
        exit_code: Option<i32>,
        /// More about the cause (an error message, the stderr tail), at
        /// most [`MAX_TEXT_CHARS`] characters.
        #[serde(default)]
        detail: Option<String>,
    },
    /// The hub is starting a server again after it died.
    McpRestart {
        /// The server's configured name.
        server: String,
        /// 1 for the first restart after a failure, counting up.
        attempt: u32,
        /// Why, at most [`MAX_TEXT_CHARS`] characters.
        reason: String,
    },
    /// A tool call finished, one way or another.
    McpToolCall {
        /// The server's configured name.
        server: String,
        /// The tool's name on that server (not the exposed name).
        tool: String,
        /// Wall time from sending the call to its outcome, in milliseconds.
        duration_ms: u64,
        /// How it ended.
        outcome: CallOutcome,
        /// The top-level argument names, sorted; never the values.
        #[serde(default)]
        argument_names: Vec<String>,
        /// The error text for every outcome but `ok`, at most
        /// [`MAX_TEXT_CHARS`] characters.
        #[serde(default)]
        error: Option<String>,
    },
    /// `count` events were dropped because the queue was full.
    AuditDropped {
        /// How many, since the previous `audit_dropped` event.
        count: u64,
    },
}

/// Why a connection ended (`reason` of `mcp_disconnect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DisconnectReason {
    /// The hub or its user asked for it (`disconnect`, shutdown).
    Requested,
    /// The server's process exited on its own.
    ProcessExit,
    /// A transport or protocol error ended it.
    Error,
}

/// How a tool call ended (`outcome` of `mcp_tool_call`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallOutcome {
    /// The tool succeeded.
    Ok,
    /// The tool ran and reported failure (`isError: true`): a result, not
    /// a protocol error.
    ToolError,
    /// A transport or protocol failure.
    Error,
    /// No answer within the call timeout.
    Timeout,
}

impl AuditEvent {
    /// An event of `kind` stamped with the current time.
    pub fn now(kind: AuditEventKind) -> Self {
        Self {
            timestamp: Timestamp::now(),
            kind,
        }
    }

    /// `mcp_connect`, now.
    pub fn connect(server: &str, transport: &str, tool_count: usize) -> Self {
        Self::now(AuditEventKind::McpConnect {
            server: server.to_owned(),
            transport: transport.to_owned(),
            tool_count,
        })
    }

    /// `mcp_disconnect`, now.
    pub fn disconnect(
        server: &str,
        reason: DisconnectReason,
        exit_code: Option<i32>,
        detail: Option<&str>,
    ) -> Self {
        Self::now(AuditEventKind::McpDisconnect {
            server: server.to_owned(),
            reason,
            exit_code,
            detail: detail.map(str::to_owned),
        })
    }

    /// `mcp_restart`, now.
    pub fn restart(server: &str, attempt: u32, reason: &str) -> Self {
        Self::now(AuditEventKind::McpRestart {
            server: server.to_owned(),
            attempt,
            reason: reason.to_owned(),
        })
    }

    /// `mcp_tool_call`, now, with the argument names taken from `arguments`
    /// ([`argument_names`]); its values are not kept. `duration` is stored
    /// in whole milliseconds.
    pub fn tool_call(
        server: &str,
        tool: &str,
        duration: Duration,
        outcome: CallOutcome,
        arguments: &serde_json::Value,
        error: Option<&str>,
    ) -> Self {
        Self::now(AuditEventKind::McpToolCall {
            server: server.to_owned(),
            tool: tool.to_owned(),
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            outcome,
            argument_names: argument_names(arguments),
            error: error.map(str::to_owned),
        })
    }

    /// `audit_dropped`, now.
    pub fn dropped(count: u64) -> Self {
        Self::now(AuditEventKind::AuditDropped { count })
    }

    /// The event's `kind` tag as in its JSON: `"mcp_connect"`, ….
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            AuditEventKind::McpConnect { .. } => "mcp_connect",
            AuditEventKind::McpDisconnect { .. } => "mcp_disconnect",
            AuditEventKind::McpRestart { .. } => "mcp_restart",
            AuditEventKind::McpToolCall { .. } => "mcp_tool_call",
            AuditEventKind::AuditDropped { .. } => "audit_dropped",
        }
    }

    /// The server the event is about, if any.
    pub fn server(&self) -> Option<&str> {
        match &self.kind {
            AuditEventKind::McpConnect { server, .. }
            | AuditEventKind::McpDisconnect { server, .. }
            | AuditEventKind::McpRestart { server, .. }
            | AuditEventKind::McpToolCall { server, .. } => Some(server),
            AuditEventKind::AuditDropped { .. } => None,
        }
    }

    /// The tool, for `mcp_tool_call` events.
    pub fn tool(&self) -> Option<&str> {
        match &self.kind {
            AuditEventKind::McpToolCall { tool, .. } => Some(tool),
            _ => None,
        }
    }

    /// The event as it is stored: names and free text cut to length, free
    /// text with secret-named values masked ([`scrub_text`]).
    pub(crate) fn sanitized(mut self) -> Self {
        match &mut self.kind {
            AuditEventKind::McpConnect {
                server, transport, ..
            } => {
                cut_name(server);
                cut_name(transport);
            }
            AuditEventKind::McpDisconnect { server, detail, .. } => {
                cut_name(server);
                *detail = detail.as_deref().map(scrub_text);
            }
            AuditEventKind::McpRestart { server, reason, .. } => {
                cut_name(server);
                *reason = scrub_text(reason);
            }
            AuditEventKind::McpToolCall {
                server,
                tool,
                argument_names,
                error,
                ..
            } => {
                cut_name(server);
                cut_name(tool);
                argument_names.truncate(MAX_ARGUMENT_NAMES);
                argument_names.iter_mut().for_each(cut_name);
                *error = error.as_deref().map(scrub_text);
            }
            AuditEventKind::AuditDropped { .. } => {}
        }
        self
    }
}

/// The top-level key names of a tool call's `arguments`, sorted; empty when
/// `arguments` is not an object. Values, and keys of nested objects, are
/// never looked at.
///
/// # Examples
/// ```
/// use toolbridge::audit::argument_names;
/// let args = serde_json::json!({"path": "/etc/passwd", "api_key": "sk-123", "opts": {"deep": 1}});
/// assert_eq!(argument_names(&args), ["api_key", "opts", "path"]);
/// ```
pub fn argument_names(arguments: &serde_json::Value) -> Vec<String> {
    let mut names: Vec<String> = arguments
        .as_object()
        .map(|map| map.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    names
}

fn cut_name(name: &mut String) {
    if let Some((at, _)) = name.char_indices().nth(MAX_NAME_CHARS) {
        name.truncate(at);
    }
}

/// `text` cut to [`MAX_TEXT_CHARS`] characters (with `…` when cut), with
/// secret-looking values masked: `name=value` and `--name value` as in
/// [`mask_args`], URL passwords and secret query parameters, and the word
/// after `Name:` when the name looks secret (two words when the first is
/// a scheme like `Bearer`). Best effort: the audit log's real guarantee is
/// that it is never handed argument values.
pub(crate) fn scrub_text(text: &str) -> String {
    let cut: String = text.chars().take(MAX_TEXT_CHARS).collect();
    // Each space-separated word as (leading brackets/quotes, core,
    // trailing brackets/punctuation), so `(--api-key` is seen as a flag.
    let parts: Vec<(&str, &str, &str)> = cut
        .split(' ')
        .map(|word| {
            let core = word.trim_start_matches(['(', '[', '{', '"', '\'']);
            let lead = &word[..word.len() - core.len()];
            let trimmed = core.trim_end_matches([')', ']', '}', ',', ';', '"', '\'']);
            (lead, trimmed, &core[trimmed.len()..])
        })
        .collect();
    let raw: Vec<String> = parts
        .iter()
        .map(|(_, core, _)| (*core).to_owned())
        .collect();
    let mut words = mask_args(&raw);
    let mut i = 0;
    while i < raw.len() {
        if !is_secret_label(&raw[i]) {
            i += 1;
            continue;
        }
        // mask_args reads `Name:` as a pair with an empty value; keep the
        // label as written and mask the word after it instead.
        words[i].clone_from(&raw[i]);
        let mut value = i + 1;
        if raw.get(value).is_some_and(|w| is_auth_scheme(w)) {
            value += 1;
        }
        if let Some(word) = words.get_mut(value) {
            *word = mask_secret(word);
        }
        i = value + 1;
    }
    let mut out = String::with_capacity(cut.len());
    for (i, ((lead, _, trail), word)) in parts.iter().zip(&words).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(lead);
        out.push_str(word);
        out.push_str(trail);
    }
    if text.chars().nth(MAX_TEXT_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// `Authorization:`, `"api_key":` and the like.
fn is_secret_label(word: &str) -> bool {
    word.trim_end_matches(['"', '\''])
        .strip_suffix(':')
        .map(|name| name.trim_matches(['"', '\'']))
        .is_some_and(|name| !name.is_empty() && is_secret_name(name))
}

fn is_auth_scheme(word: &str) -> bool {
    ["bearer", "basic", "token"]
        .iter()
        .any(|s| word.eq_ignore_ascii_case(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_names_are_top_level_keys_only() {
        let args = serde_json::json!({"b": {"nested_secret": "x"}, "a": "v"});
        assert_eq!(argument_names(&args), ["a", "b"]);
        assert!(argument_names(&serde_json::json!(["x"])).is_empty());
        assert!(argument_names(&serde_json::Value::Null).is_empty());
    }

    #[test]
    fn free_text_is_cut_and_secret_values_masked() {
        let long = "x".repeat(MAX_TEXT_CHARS + 10);
        let cut = scrub_text(&long);
        assert_eq!(cut.chars().count(), MAX_TEXT_CHARS + 1);
        assert!(cut.ends_with('…'));

        let text = "failed: token=ghp_abcdefghijklmnop Authorization: Bearer sk-live-0123456789 \
                    at https://u:pw123@h/x?api_key=zzz (--api-key sk-other-98765432)";
        let out = scrub_text(text);
        for secret in [
            "ghp_abcdefghijklmnop",
            "sk-live-0123456789",
            "pw123",
            "zzz",
            "sk-other-98765432",
        ] {
            assert!(!out.contains(secret), "{secret} in {out}");
        }
        assert!(out.starts_with("failed: token=****"), "{out}");
        assert!(out.contains("Authorization: Bearer ****"), "{out}");
        assert_eq!(scrub_text("plain error: exit 1"), "plain error: exit 1");
    }

    #[test]
    fn json_shape_is_flat_with_kind_tag_and_explicit_nulls() {
        let event = AuditEvent {
            timestamp: Timestamp::from_unix_millis(1),
            kind: AuditEventKind::McpToolCall {
                server: "git".into(),
                tool: "status".into(),
                duration_ms: 41,
                outcome: CallOutcome::ToolError,
                argument_names: vec!["repo".into()],
                error: None,
            },
        };
        let json = serde_json::to_string(&event).unwrap_or_default();
        assert_eq!(
            json,
            r#"{"timestamp":"1970-01-01T00:00:00.001Z","kind":"mcp_tool_call","server":"git","tool":"status","duration_ms":41,"outcome":"tool_error","argument_names":["repo"],"error":null}"#
        );
        let back: Option<AuditEvent> = serde_json::from_str(&json).ok();
        assert_eq!(back, Some(event));
        let dropped = r#"{"timestamp":"1970-01-01T00:00:00Z","kind":"audit_dropped","count":3}"#;
        let back: Option<AuditEvent> = serde_json::from_str(dropped).ok();
        assert_eq!(
            back.map(|e| e.kind),
            Some(AuditEventKind::AuditDropped { count: 3 })
        );
    }
}
