//! A lenient newline-delimited JSON-RPC transport for stdio servers.
//!
//! The MCP stdio transport (MCP specification 2025-11-25, "Transports" →
//! "stdio") says a server writes nothing but JSON-RPC messages, one per
//! line. Real servers do not always: they print banners and log lines on
//! stdout, end lines with `\r\n`, or write one very large line. This
//! transport reads such output without failing the connection:
//! - a line that is not a JSON object (a banner, a log line) is skipped and
//!   logged at debug level;
//! - a JSON object that is not a JSON-RPC message (a structured log line)
//!   is skipped likewise;
//! - `\r\n` and surrounding whitespace are trimmed;
//! - a line may be any length (tested at 8 MiB and more);
//! - a response that rmcp cannot decode is turned into a JSON-RPC error for
//!   its request id, so the caller gets an error at once instead of waiting
//!   for its timeout;
//! - a `server/discover` probe left unanswered for
//!   [`DISCOVER_PROBE_TIMEOUT`] (some legacy servers ignore unknown methods)
//!   is answered with `-32601` on the server's behalf, so the `initialize`
//!   fallback starts at once; the server's late answer, if any, is dropped.

use std::{sync::Arc, time::Duration};

use rmcp::{
    RoleClient,
    model::{
        ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, NumberOrString, RequestId,
        ServerJsonRpcMessage,
    },
    service::TxJsonRpcMessage,
    transport::Transport,
};
use serde_json::Value;
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter},
    sync::Mutex,
    time::Instant,
};
use tokio_util::sync::CancellationToken;

use super::{multiplex::Multiplexer, redact::Redactions};

/// What the transport saw on stdout that was not protocol, for errors: a
/// server that prints its usage or a banner and exits is explained by it.
#[derive(Debug, Default)]
pub(crate) struct StdoutNotes {
    skipped: std::sync::Mutex<std::collections::VecDeque<String>>,
    skipped_count: std::sync::atomic::AtomicUsize,
    /// Why reading stopped early (a line over the size limit).
    broken: std::sync::OnceLock<String>,
    /// Secrets hidden from the kept lines.
    redactions: Redactions,
}

impl StdoutNotes {
    /// How many skipped lines are kept for errors, and how much of each.
    const KEPT_LINES: usize = 5;
    const KEPT_LINE_CHARS: usize = 200;

    fn skipped_line(&self, line: &[u8]) {
        let text: String = self
            .redactions
            .apply(&String::from_utf8_lossy(line))
            .chars()
            .take(Self::KEPT_LINE_CHARS)
            .collect();
        self.skipped_count
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut kept = self.skipped.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() == Self::KEPT_LINES {
            kept.pop_front();
        }
        kept.push_back(text);
    }

    /// The skipped lines as text for an error (empty when there were none).
    pub(crate) fn summary(&self) -> String {
        let count = self
            .skipped_count
            .load(std::sync::atomic::Ordering::Relaxed);
        if count == 0 {
            return String::new();
        }
        let kept = self.skipped.lock().unwrap_or_else(|e| e.into_inner());
        let lines: Vec<&str> = kept.iter().map(String::as_str).collect();
        format!(
            "{count} line(s) that are not JSON-RPC, last: {}",
            lines.join(" | ")
        )
    }

    /// Why reading stopped early, if it did.
    pub(crate) fn broken(&self) -> Option<&str> {
        self.broken.get().map(String::as_str)
    }
}

/// A writer shared between the transport and its owner, who may close it
/// (take it out) at any time.
pub(crate) type SharedWriter<W> = Arc<Mutex<Option<BufWriter<W>>>>;

/// Writes one line and flushes it, under the writer's lock (so lines from
/// rmcp and from fast-path callers never interleave).
///
/// # Errors
/// `NotConnected` when the owner closed the writer (`cleanup()`); the
/// write's own error otherwise (`BrokenPipe` when the server is gone).
pub(crate) async fn write_line<W: AsyncWrite + Unpin>(
    writer: &SharedWriter<W>,
    line: &[u8],
) -> std::io::Result<()> {
    let mut guard = writer.lock().await;
    let Some(writer) = guard.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the server's stdin is closed",
        ));
    };
    writer.write_all(line).await?;
    writer.flush().await
}

/// Wraps `writer` for [`LineTransport::new`].
pub(crate) fn shared_writer<W: AsyncWrite>(writer: W) -> SharedWriter<W> {
    Arc::new(Mutex::new(Some(BufWriter::new(writer))))
}

/// Newline-delimited JSON-RPC over a reader (the server's stdout) and a
/// writer (its stdin). Cancels `closed` when the reader reaches its end.
pub(crate) struct LineTransport<R, W> {
    server: Arc<str>,
    reader: BufReader<R>,
    writer: Arc<Mutex<Option<BufWriter<W>>>>,
    line: Vec<u8>,
    /// The longest line accepted, in bytes.
    max_line_bytes: usize,
    notes: Arc<StdoutNotes>,
    closed: CancellationToken,
    /// The `server/discover` probe awaiting its answer, if any.
    discover: Option<DiscoverProbe>,
    /// The id of a probe answered on the server's behalf: its late real
    /// answer must not reach rmcp.
    answered_for_server: Option<RequestId>,
    /// Replies to toolbridge's own fast-path requests go here, not to rmcp.
    multiplexer: Option<Arc<Multiplexer>>,
}

/// A `server/discover` request in flight.
struct DiscoverProbe {
    id: RequestId,
    deadline: Instant,
}

/// How long a `server/discover` probe may go unanswered before it is taken
/// as refused. Some legacy servers ignore unknown methods instead of
/// answering `-32601`; without this, rmcp's `Auto` mode waits 10 s before
/// falling back to `initialize`.
pub(crate) const DISCOVER_PROBE_TIMEOUT: Duration = Duration::from_secs(3);

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading `reader` and writing to the shared `writer`
    /// (see [`shared_writer`]); `closed` is cancelled at the reader's end.
    pub(crate) fn new(
        server: Arc<str>,
        reader: R,
        writer: SharedWriter<W>,
        closed: CancellationToken,
    ) -> Self {
        Self {
            server,
            reader: BufReader::with_capacity(64 * 1024, reader),
            writer,
            line: Vec::with_capacity(4 * 1024),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            notes: Arc::default(),
            closed,
            discover: None,
            answered_for_server: None,
            multiplexer: None,
        }
    }

    /// Sets the longest line accepted (default [`DEFAULT_MAX_LINE_BYTES`]).
    pub(crate) fn with_max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes.max(1);
        self
    }

    /// Hides `redactions` in the kept non-protocol lines. Call before the
    /// transport is used.
    pub(crate) fn with_redactions(mut self, redactions: Redactions) -> Self {
        self.notes = Arc::new(StdoutNotes {
            redactions,
            ..StdoutNotes::default()
        });
        self
    }

    /// What was seen on stdout that was not protocol.
    pub(crate) fn notes(&self) -> Arc<StdoutNotes> {
        Arc::clone(&self.notes)
    }

    /// Routes replies to the requests of `multiplexer` to their callers.
    pub(crate) fn with_multiplexer(mut self, multiplexer: Arc<Multiplexer>) -> Self {
        self.multiplexer = Some(multiplexer);
        self
    }

    /// Decodes one line, or says why it is skipped.
    fn decode(&self, line: &[u8]) -> Option<ServerJsonRpcMessage> {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            return None;
        }
        if trimmed[0] != b'{' {
            self.notes.skipped_line(trimmed);
            tracing::debug!(
                server = %self.server,
                line = %String::from_utf8_lossy(&trimmed[..trimmed.len().min(512)]),
                "skipping a non-JSON line on the server's stdout"
            );
            return None;
        }
        match serde_json::from_slice::<ServerJsonRpcMessage>(trimmed) {
            Ok(message) => Some(message),
            Err(error) => self.undecodable(trimmed, &error),
        }
    }

    /// Answers an unanswered `server/discover` probe with `-32601` on the
    /// server's behalf, so rmcp falls back to `initialize` at once.
    fn discover_timed_out(&mut self) -> Option<ServerJsonRpcMessage> {
        let probe = self.discover.take()?;
        tracing::info!(
            server = %self.server,
            "no answer to server/discover within {} s; treating the server as legacy",
            DISCOVER_PROBE_TIMEOUT.as_secs()
        );
        self.answered_for_server = Some(probe.id.clone());
        Some(ServerJsonRpcMessage::error(
            ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "server/discover went unanswered; treating the server as legacy",
                None,
            ),
            Some(probe.id),
        ))
    }

    /// Whether `message` goes to rmcp: a late answer to a probe already
    /// answered on the server's behalf does not.
    fn keep(&mut self, message: &ServerJsonRpcMessage) -> bool {
        let id = match message {
            ServerJsonRpcMessage::Response(response) => Some(&response.id),
            ServerJsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        let Some(id) = id else {
            return true;
        };
        if self.discover.as_ref().is_some_and(|probe| &probe.id == id) {
            self.discover = None;
        }
        if self.answered_for_server.as_ref() == Some(id) {
            self.answered_for_server = None;
            tracing::debug!(server = %self.server, "dropping a late answer to server/discover");
            return false;
        }
        true
    }

    /// A line that is JSON but not a message rmcp can decode: an error for
    /// its request id when it is a response, else skipped.
    fn undecodable(&self, line: &[u8], error: &serde_json::Error) -> Option<ServerJsonRpcMessage> {
        let value: Value = match serde_json::from_slice(line) {
            Ok(value) => value,
            Err(_) => {
                self.notes.skipped_line(line);
                tracing::debug!(server = %self.server, %error, "skipping a line that is not valid JSON");
                return None;
            }
        };
        let is_response = value.get("result").is_some() || value.get("error").is_some();
        let id = match value.get("id") {
            Some(Value::Number(n)) => n.as_i64().map(NumberOrString::Number),
            Some(Value::String(s)) => Some(NumberOrString::String(s.as_str().into())),
            _ => None,
        };
        match (is_response, id) {
            (true, Some(id)) => {
                tracing::warn!(server = %self.server, %error, "the server sent a response toolbridge cannot decode");
                Some(ServerJsonRpcMessage::error(
                    ErrorData::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!("the server's response could not be decoded: {error}"),
                        None,
                    ),
                    Some(id),
                ))
            }
            _ => {
                tracing::debug!(server = %self.server, %error, "skipping a JSON line that is not a JSON-RPC message");
                None
            }
        }
    }
}

impl<R, W> Transport<RoleClient> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ClientJsonRpcMessage::Request(request) = &item
            && matches!(request.request, ClientRequest::DiscoverRequest(_))
        {
            self.discover = Some(DiscoverProbe {
                id: request.id.clone(),
                deadline: Instant::now() + DISCOVER_PROBE_TIMEOUT,
            });
        }
        let writer = Arc::clone(&self.writer);
        let encoded = serde_json::to_vec(&item).map(|mut bytes| {
            bytes.push(b'\n');
            bytes
        });
        async move {
            let bytes = encoded.map_err(std::io::Error::other)?;
            match write_line(&writer, &bytes).await {
                // The server is gone (or closed its stdin). Its stdout still
                // ends, and that ending is what reports it, with whatever it
                // printed before (a usage text); failing here first would
                // end the handshake before that output was read.
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {
                    tracing::debug!(%error, "the server's stdin is closed; waiting for its stdout to end");
                    Ok(())
                }
                other => other,
            }
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        // rmcp drops this future whenever another event wins its select
        // loop: bytes already read stay in `self.line` (read_line_bounded
        // appends), and the line is cleared only once it has been handled
        // whole.
        loop {
            let deadline = self.discover.as_ref().map(|probe| probe.deadline);
            let read = tokio::select! {
                read = read_line_bounded(&mut self.reader, &mut self.line, self.max_line_bytes) => read,
                () = sleep_until_or_never(deadline) => {
                    if let Some(answer) = self.discover_timed_out() {
                        return Some(answer);
                    }
                    continue;
                }
            };
            match read {
                Ok(0) => break,
                Ok(_) => {}
                Err(error) if error.kind() == std::io::ErrorKind::InvalidData => {
                    let reason = format!(
                        "the server sent a line longer than {} bytes (the limit for one message); the connection was closed",
                        self.max_line_bytes
                    );
                    tracing::warn!(server = %self.server, "{reason}");
                    let _ = self.notes.broken.set(reason);
                    self.line = Vec::with_capacity(4 * 1024);
                    break;
                }
                Err(error) => {
                    tracing::debug!(server = %self.server, %error, "reading the server's stdout failed");
                    break;
                }
            }
            let line = std::mem::take(&mut self.line);
            let routed = self
                .multiplexer
                .as_ref()
                .is_some_and(|mux| mux.route(line.trim_ascii()));
            let decoded = if routed { None } else { self.decode(&line) };
            self.line = line;
            self.line.clear();
            if self.line.capacity() > 1024 * 1024 {
                // Keep big buffers from lingering after one large message.
                self.line = Vec::with_capacity(4 * 1024);
            }
            if let Some(message) = decoded
                && self.keep(&message)
            {
                return Some(message);
            }
        }
        self.closed.cancel();
        None
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Dropping the writer closes the server's stdin: the stdio transport's
        // shutdown signal.
        let writer = self.writer.lock().await.take();
        if let Some(mut writer) = writer {
            let _ = writer.flush().await;
            let _ = writer.shutdown().await;
        }
        Ok(())
    }
}

/// The longest line (one JSON-RPC message) read from a server by default:
/// 128 MiB. A server sending more is broken (or hostile); reading on would
/// only exhaust memory.
pub const DEFAULT_MAX_LINE_BYTES: usize = 128 * 1024 * 1024;

/// Like `read_until(b'\n')`, but fails with `InvalidData` once `line` would
/// grow past `max` bytes. Cancel-safe in the same way: bytes taken from the
/// reader are already in `line`.
async fn read_line_bounded<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<usize> {
    let mut read = 0;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(read);
        }
        let (used, done) = match memchr::memchr(b'\n', available) {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        if line.len() + used > max {
            line.clear();
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "line too long",
            ));
        }
        line.extend_from_slice(&available[..used]);
        reader.consume(used);
        read += used;
        if done {
            return Ok(read);
        }
    }
}

/// Sleeps until `deadline`, or forever when there is none.
async fn sleep_until_or_never(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transport() -> LineTransport<&'static [u8], Vec<u8>> {
        LineTransport::new(
            "t".into(),
            &b""[..],
            shared_writer(Vec::new()),
            CancellationToken::new(),
        )
    }

    #[test]
    fn banners_and_blank_lines_are_skipped() {
        let t = transport();
        assert!(t.decode("🚀 Server starting...\n".as_bytes()).is_none());
        assert!(t.decode(b"\r\n").is_none());
        assert!(
            t.decode(br#"{"level":"info","msg":"structured log"}"#)
                .is_none()
        );
    }

    #[test]
    fn crlf_lines_decode() {
        let t = transport();
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n";
        assert!(t.decode(line).is_some());
    }

    #[test]
    fn undecodable_response_becomes_an_error_for_its_id() {
        let t = transport();
        let line = br#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":1}]},"error":3}"#;
        match t.decode(line) {
            Some(ServerJsonRpcMessage::Error(error)) => {
                assert_eq!(error.id, Some(NumberOrString::Number(5)));
            }
            Some(ServerJsonRpcMessage::Response(_)) => {
                // rmcp decoded it leniently; also acceptable.
            }
            other => panic!("unexpected: {other:?}"),
        }
    }

    /// A transport plus the server's ends of its stdout and stdin pipes.
    fn pipe_transport() -> (
        LineTransport<tokio::io::DuplexStream, tokio::io::DuplexStream>,
        tokio::io::DuplexStream,
        tokio::io::DuplexStream,
    ) {
        let (server_stdout, client_reader) = tokio::io::duplex(1 << 20);
        let (client_writer, server_stdin) = tokio::io::duplex(1 << 20);
        let transport = LineTransport::new(
            "t".into(),
            client_reader,
            shared_writer(client_writer),
            CancellationToken::new(),
        );
        (transport, server_stdout, server_stdin)
    }

    #[tokio::test]
    async fn a_line_split_across_a_dropped_receive_is_not_lost() {
        let (mut transport, mut server, _stdin) = pipe_transport();
        server
            .write_all(br#"{"jsonrpc":"2.0","id":1,"#)
            .await
            .unwrap();
        let first = tokio::time::timeout(Duration::from_millis(50), transport.receive()).await;
        assert!(first.is_err(), "half a line must not produce a message");
        server.write_all(b"\"result\":{}}\n").await.unwrap();
        let message = transport.receive().await.unwrap();
        assert!(
            matches!(message, ServerJsonRpcMessage::Response(_)),
            "{message:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_unanswered_discover_probe_is_refused_and_its_late_answer_dropped() {
        use rmcp::model::{DiscoverRequest, DiscoverRequestParams};
        let (mut transport, mut server, _stdin) = pipe_transport();
        let probe = ClientJsonRpcMessage::request(
            ClientRequest::DiscoverRequest(DiscoverRequest::new(DiscoverRequestParams {})),
            NumberOrString::Number(0),
        );
        transport.send(probe).await.unwrap();
        match transport.receive().await.unwrap() {
            ServerJsonRpcMessage::Error(error) => {
                assert_eq!(error.id, Some(NumberOrString::Number(0)));
                assert_eq!(error.error.code, ErrorCode::METHOD_NOT_FOUND);
            }
            other => panic!("expected a synthesized error, got {other:?}"),
        }
        server
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-32601,\"message\":\"late\"}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")
            .await
            .unwrap();
        match transport.receive().await.unwrap() {
            ServerJsonRpcMessage::Response(response) => {
                assert_eq!(response.id, NumberOrString::Number(1));
            }
            other => panic!("the late answer must be dropped, got {other:?}"),
        }
    }
}
