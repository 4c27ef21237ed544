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
//!   for its timeout.

use std::sync::Arc;

use rmcp::{
    RoleClient,
    model::{ErrorCode, ErrorData, NumberOrString, ServerJsonRpcMessage},
    service::TxJsonRpcMessage,
    transport::Transport,
};
use serde_json::Value;
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter},
    sync::Mutex,
};
use tokio_util::sync::CancellationToken;

/// A writer shared between the transport and its owner, who may close it
/// (take it out) at any time.
pub(crate) type SharedWriter<W> = Arc<Mutex<Option<BufWriter<W>>>>;

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
    closed: CancellationToken,
}

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
            closed,
        }
    }

    /// Decodes one line, or says why it is skipped.
    fn decode(&self, line: &[u8]) -> Option<ServerJsonRpcMessage> {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            return None;
        }
        if trimmed[0] != b'{' {
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

    /// A line that is JSON but not a message rmcp can decode: an error for
    /// its request id when it is a response, else skipped.
    fn undecodable(&self, line: &[u8], error: &serde_json::Error) -> Option<ServerJsonRpcMessage> {
        let value: Value = match serde_json::from_slice(line) {
            Ok(value) => value,
            Err(_) => {
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
        let writer = Arc::clone(&self.writer);
        let encoded = serde_json::to_vec(&item).map(|mut bytes| {
            bytes.push(b'\n');
            bytes
        });
        async move {
            let bytes = encoded.map_err(std::io::Error::other)?;
            let mut guard = writer.lock().await;
            let Some(writer) = guard.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    "the server's stdin is closed",
                ));
            };
            writer.write_all(&bytes).await?;
            writer.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            self.line.clear();
            match self.reader.read_until(b'\n', &mut self.line).await {
                Ok(0) => break,
                Ok(_) => {}
                Err(error) => {
                    tracing::debug!(server = %self.server, %error, "reading the server's stdout failed");
                    break;
                }
            }
            let line = std::mem::take(&mut self.line);
            let decoded = self.decode(&line);
            self.line = line;
            if let Some(message) = decoded {
                // Keep big buffers from lingering after one large message.
                if self.line.capacity() > 1024 * 1024 {
                    self.line = Vec::with_capacity(4 * 1024);
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn transport() -> LineTransport<&'static [u8], Vec<u8>> {
        LineTransport::new("t".into(), &b""[..], shared_writer(Vec::new()), CancellationToken::new())
    }

    #[test]
    fn banners_and_blank_lines_are_skipped() {
        let t = transport();
        assert!(t.decode("🚀 Server starting...\n".as_bytes()).is_none());
        assert!(t.decode(b"\r\n").is_none());
        assert!(t.decode(br#"{"level":"info","msg":"structured log"}"#).is_none());
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
}
