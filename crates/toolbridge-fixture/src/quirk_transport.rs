//! The stdio transport: newline-delimited JSON-RPC with byte-level quirks.
//!
//! [`QuirkTransport`] implements rmcp's `Transport<RoleServer>` itself (rather
//! than using rmcp's `stdio()`), so it can add banner junk, CRLF endings and
//! early notifications, splice malformed tools into `tools/list`, and answer
//! `server/discover` the way legacy servers do before rmcp ever sees it.

use std::{
    borrow::Cow,
    collections::HashMap,
    io,
    sync::{Arc, Mutex},
};

use rmcp::{
    RoleServer,
    model::{ClientJsonRpcMessage, JsonRpcMessage, RequestId, ServerJsonRpcMessage},
    transport::Transport,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::{
    line_io::{StdoutWriter, spawn_stdin_reader},
    quirks::{self, ProtocolMode, QuirkSet},
};

/// Requests whose responses get special treatment on the way out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tracked {
    /// `initialize` or `server/discover`.
    Handshake,
    /// `tools/list` without a cursor (the first page).
    FirstToolsPage,
}

/// State shared between `receive` (which sees requests) and `send`.
#[derive(Default)]
struct Shared {
    /// Request id (as compact JSON) → why it is tracked.
    tracked: HashMap<String, Tracked>,
    /// Frames written so far (for the `banner` quirk's "every 5th message").
    written: u64,
}

/// rmcp transport over the process's stdin/stdout with quirks applied.
pub struct QuirkTransport {
    quirks: QuirkSet,
    protocol: ProtocolMode,
    lines: mpsc::Receiver<Vec<u8>>,
    out: StdoutWriter,
    shared: Arc<Mutex<Shared>>,
}

impl QuirkTransport {
    /// Starts the stdin/stdout threads and writes the banner, if enabled.
    pub fn stdio(quirks: QuirkSet, protocol: ProtocolMode) -> Self {
        let transport = Self {
            quirks,
            protocol,
            lines: spawn_stdin_reader(),
            out: StdoutWriter::spawn(),
            shared: Arc::default(),
        };
        if quirks.banner {
            let mut bytes = Vec::new();
            for line in quirks::BANNER_LINES {
                transport.push_line(&mut bytes, line.as_bytes());
            }
            transport.out.submit_detached(bytes);
        }
        transport
    }

    fn eol(&self) -> &'static [u8] {
        if self.quirks.crlf { b"\r\n" } else { b"\n" }
    }

    fn push_line(&self, bytes: &mut Vec<u8>, line: &[u8]) {
        bytes.extend_from_slice(line);
        bytes.extend_from_slice(self.eol());
    }

    /// Turns one serialized JSON message into a frame: line ending, plus the
    /// banner quirk's junk lines where due.
    fn frame(&self, mut json: Vec<u8>, tracked: Option<Tracked>) -> Vec<u8> {
        json.extend_from_slice(self.eol());
        if self.quirks.banner {
            let written = {
                let mut shared = self.shared.lock().expect("transport state poisoned");
                shared.written += 1;
                shared.written
            };
            if tracked == Some(Tracked::Handshake) {
                self.push_line(&mut json, quirks::BANNER_AFTER_INIT.as_bytes());
            }
            if written % 5 == 0 {
                self.push_line(&mut json, quirks::banner_periodic(written).as_bytes());
            }
        }
        json
    }

    /// Writes a raw JSON value as its own frame, not waiting for the write.
    fn write_value(&self, value: &Value, tracked: Option<Tracked>) {
        let json = serde_json::to_vec(value).expect("serializing a JSON value cannot fail");
        self.out.submit_detached(self.frame(json, tracked));
    }

    fn take_tracked(&self, id: &RequestId) -> Option<Tracked> {
        if !(self.quirks.banner || self.quirks.bad_tools) {
            return None;
        }
        let key = serde_json::to_string(id).ok()?;
        let mut shared = self.shared.lock().expect("transport state poisoned");
        shared.tracked.remove(&key)
    }

    fn track(&self, id: &Value, what: Tracked) {
        let wanted = match what {
            Tracked::Handshake => self.quirks.banner,
            Tracked::FirstToolsPage => self.quirks.bad_tools,
        };
        if wanted {
            let mut shared = self.shared.lock().expect("transport state poisoned");
            shared.tracked.insert(id.to_string(), what);
        }
    }

    fn encode(&self, item: ServerJsonRpcMessage) -> io::Result<Vec<u8>> {
        let tracked = match &item {
            JsonRpcMessage::Response(response) => self.take_tracked(&response.id),
            JsonRpcMessage::Error(error) => error.id.as_ref().and_then(|id| self.take_tracked(id)),
            _ => None,
        };
        let json = if tracked == Some(Tracked::FirstToolsPage) {
            let mut value = serde_json::to_value(&item)?;
            if let Some(result) = value.get_mut("result") {
                quirks::splice_bad_tools(result);
            }
            serde_json::to_vec(&value)?
        } else {
            serde_json::to_vec(&item)?
        };
        Ok(self.frame(json, tracked))
    }

    /// Looks at one inbound line. Returns the message to hand to rmcp, or
    /// `None` when the line was consumed here (junk, or answered directly).
    fn inspect(&self, line: &[u8]) -> Option<ClientJsonRpcMessage> {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(value) => value,
            Err(error) => {
                eprintln!("fixture: ignoring unparsable input line: {error}");
                return None;
            }
        };
        let method = value.get("method").and_then(Value::as_str);
        let id = value.get("id").filter(|_| method.is_some());
        if let (Some(method), Some(id)) = (method, id) {
            match method {
                "initialize" | "server/discover" => {
                    if self.quirks.notify_before_init {
                        for notification in quirks::early_notifications() {
                            self.write_value(&notification, None);
                        }
                    }
                    if method == "server/discover" && self.protocol == ProtocolMode::LegacySilent {
                        eprintln!("fixture: ignoring server/discover (legacy-silent)");
                        return None;
                    }
                    if method == "server/discover"
                        && let Some(rejection) = self.protocol.discover_rejection(id)
                    {
                        self.write_value(&rejection, Some(Tracked::Handshake));
                        return None;
                    }
                    self.track(id, Tracked::Handshake);
                }
                "tools/list" => {
                    let cursor = value.pointer("/params/cursor").filter(|c| !c.is_null());
                    if cursor.is_none() {
                        self.track(id, Tracked::FirstToolsPage);
                    }
                }
                _ => {}
            }
        }
        let is_request = method.is_some();
        let id = value.get("id").cloned();
        match serde_json::from_value::<ClientJsonRpcMessage>(value) {
            Ok(message) => Some(message),
            Err(error) => {
                eprintln!("fixture: invalid JSON-RPC message: {error}");
                if let Some(id) = id.filter(|_| is_request) {
                    let reply = json!({
                        "jsonrpc": "2.0",
                        "id": id,
                        "error": { "code": -32600, "message": "Invalid request" },
                    });
                    self.write_value(&reply, None);
                }
                None
            }
        }
    }
}

impl Transport<RoleServer> for QuirkTransport {
    type Error = io::Error;

    fn name() -> Cow<'static, str> {
        "fixture-quirk-stdio".into()
    }

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let written = self.encode(item).map(|frame| self.out.submit(frame));
        async move { written?.await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let Some(line) = self.lines.recv().await else {
                if self.quirks.ignore_sigterm {
                    eprintln!("fixture: stdin closed; ignore-sigterm keeps the server running");
                    std::future::pending::<()>().await;
                }
                return None;
            };
            if let Some(message) = self.inspect(&line) {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.lines.close();
        Ok(())
    }
}
