//! Quirk flags and the canned bytes some quirks put on the wire.

use serde_json::{Value, json};

/// A quirk selectable with `--quirk NAME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Quirk {
    /// Emoji banner lines and periodic non-JSON log lines on stdout.
    Banner,
    /// Terminate every written line with `\r\n`.
    Crlf,
    /// Send notifications before the initialize / discover response.
    NotifyBeforeInit,
    /// Split `tools/list` into exactly 3 pages.
    Paged,
    /// Like `paged`, but the last page repeats its own cursor forever.
    RepeatCursor,
    /// Splice malformed tools into the `tools/list` result.
    BadTools,
    /// Ignore SIGTERM and keep running after stdin EOF.
    IgnoreSigterm,
}

/// How the server answers `server/discover` and which versions it negotiates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ProtocolMode {
    /// Whatever rmcp serves: both the `initialize` era and the 2026-07-28 era.
    #[default]
    Auto,
    /// A pre-2026 server: `server/discover` gets -32601, at most 2025-06-18.
    Legacy,
    /// Like `legacy`, but `server/discover` gets an `"id": null`, -32600 error.
    LegacyOdd,
    /// Like `legacy`, but on stdio `server/discover` is ignored: no answer at
    /// all, as servers that drop unknown methods do. (Over HTTP it is
    /// answered like `legacy`.)
    LegacySilent,
}

impl ProtocolMode {
    /// Whether the server pretends to predate the 2026-07-28 revision.
    pub fn is_legacy(self) -> bool {
        self != Self::Auto
    }

    /// The error response a legacy server gives to `server/discover`, if any.
    pub fn discover_rejection(self, id: &Value) -> Option<Value> {
        match self {
            Self::Auto => None,
            Self::Legacy | Self::LegacySilent => Some(json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": { "code": -32601, "message": "Method not found" },
            })),
            Self::LegacyOdd => Some(json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": { "code": -32600, "message": "Bad Request: Server not initialized" },
            })),
        }
    }
}

/// How `tools/list` is paginated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Paging {
    /// One page with every tool.
    #[default]
    Single,
    /// Three pages: no cursor, `page-2`, `page-3`.
    ThreePages,
    /// Three pages, but `page-3` answers with `nextCursor: "page-3"` again.
    RepeatLastCursor,
}

/// The decoded set of `--quirk` flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct QuirkSet {
    /// `banner` quirk.
    pub banner: bool,
    /// `crlf` quirk.
    pub crlf: bool,
    /// `notify-before-init` quirk.
    pub notify_before_init: bool,
    /// `paged` / `repeat-cursor` quirks.
    pub paging: Paging,
    /// `bad-tools` quirk.
    pub bad_tools: bool,
    /// `ignore-sigterm` quirk.
    pub ignore_sigterm: bool,
}

impl QuirkSet {
    /// Collects repeated `--quirk` flags (`repeat-cursor` wins over `paged`).
    pub fn from_flags(flags: &[Quirk]) -> Self {
        let mut set = Self::default();
        for flag in flags {
            match flag {
                Quirk::Banner => set.banner = true,
                Quirk::Crlf => set.crlf = true,
                Quirk::NotifyBeforeInit => set.notify_before_init = true,
                Quirk::Paged if set.paging == Paging::Single => set.paging = Paging::ThreePages,
                Quirk::Paged => {}
                Quirk::RepeatCursor => set.paging = Paging::RepeatLastCursor,
                Quirk::BadTools => set.bad_tools = true,
                Quirk::IgnoreSigterm => set.ignore_sigterm = true,
            }
        }
        set
    }
}

/// Plain-text lines the `banner` quirk prints before anything else.
pub const BANNER_LINES: [&str; 2] = [
    "🚀 Fixture server v1.0 starting...",
    "Listening on stdio ✨",
];

/// The non-JSON line written right after the initialize / discover response.
pub const BANNER_AFTER_INIT: &str = "[fixture] 🔌 client connected, ready to serve";

/// The non-JSON line written after every 5th message (`n` = messages so far).
pub fn banner_periodic(n: u64) -> String {
    format!("[fixture] 📈 {n} messages written so far")
}

/// Notifications the `notify-before-init` quirk writes before the handshake answer.
pub fn early_notifications() -> [Value; 2] {
    [
        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }),
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": { "level": "info", "logger": "fixture", "data": "fixture warming up before init" },
        }),
    ]
}

/// Malformed tool entries the `bad-tools` quirk splices into `tools/list`.
pub fn bad_tools() -> [Value; 4] {
    [
        json!({ "name": "bad_schema", "inputSchema": "not-a-schema" }),
        json!({ "name": "", "inputSchema": { "type": "object" } }),
        json!({ "name": "has spaces and ünïcode!", "inputSchema": { "type": "object" } }),
        json!({ "description": "no name at all", "inputSchema": { "type": "object" } }),
    ]
}

/// Interleaves [`bad_tools`] between the good tools of a `tools/list` result.
pub fn splice_bad_tools(result: &mut Value) {
    let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
        return;
    };
    let good = std::mem::take(tools);
    let mut bad = bad_tools().into_iter();
    for tool in good {
        tools.push(tool);
        if let Some(b) = bad.next() {
            tools.push(b);
        }
    }
    tools.extend(bad);
}
