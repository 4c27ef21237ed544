//! The stdio fast path for `tools/call`: toolbridge's own request
//! multiplexer on the server's stdin and stdout.
//!
//! rmcp stays in charge of the connection (handshake, server-to-client
//! requests, notifications). Calls, the hot path, skip its engine: the
//! caller writes its request line itself, and the line transport, which
//! reads every line anyway, hands a reply whose id is one of ours straight
//! to the waiting caller. This removes the task hops and the typed decoding
//! round trips of rmcp's engine, which cost about half of a call's time
//! (see the README's performance section).
//!
//! Our request ids are strings (`"tb-1"`, `"tb-2"`, …); rmcp's are numbers,
//! so the two never collide on one connection.

use std::{
    collections::HashMap,
    sync::{
        LazyLock, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use memchr::memmem;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::oneshot;

/// The prefix of our request ids.
const ID_PREFIX: &str = "tb-";

/// A reply to one of our requests: the raw `result`, or the error.
#[derive(Debug)]
pub(crate) enum Reply {
    /// The `result` member, unparsed.
    Result(Box<RawValue>),
    /// The `error` member.
    Error(RpcError),
}

/// A JSON-RPC error object.
#[derive(Debug, Deserialize)]
pub(crate) struct RpcError {
    pub code: i32,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub data: Option<serde_json::Value>,
}

/// The members of a message needed to route it, borrowed from the line.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<RpcError>,
}

/// Requests in flight on the fast path, by id.
#[derive(Debug, Default)]
pub(crate) struct Multiplexer {
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
}

impl Multiplexer {
    /// Registers a new request; returns its id (as the JSON string to send)
    /// and the receiver of its reply.
    pub(crate) fn register(&self) -> (u64, oneshot::Receiver<Reply>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (sender, receiver) = oneshot::channel();
        self.lock().insert(id, sender);
        (id, receiver)
    }

    /// Forgets a request (answered elsewhere, timed out, or abandoned).
    pub(crate) fn forget(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// The wire form of an id: `"tb-<n>"`.
    pub(crate) fn wire_id(id: u64) -> String {
        format!("{ID_PREFIX}{id}")
    }

    /// Delivers `line` to its waiting caller when it is a reply to one of
    /// our requests; returns whether it was.
    pub(crate) fn route(&self, line: &[u8]) -> bool {
        // Cheap pre-check: only lines carrying one of our ids are parsed here.
        static OUR_ID: LazyLock<memmem::Finder<'static>> =
            LazyLock::new(|| memmem::Finder::new(b"\"tb-"));
        if OUR_ID.find(line).is_none() {
            return false;
        }
        let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(line) else {
            return false;
        };
        let Some(id) = envelope
            .id
            .and_then(|raw| raw.get().strip_prefix('"'))
            .and_then(|s| s.strip_suffix('"'))
            .and_then(|s| s.strip_prefix(ID_PREFIX))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            return false;
        };
        let reply = match (envelope.result, envelope.error) {
            (_, Some(error)) => Reply::Error(error),
            (Some(result), None) => Reply::Result(result.to_owned()),
            (None, None) => return false,
        };
        if let Some(sender) = self.lock().remove(&id) {
            // The caller may have given up (timeout); then the reply is moot.
            let _ = sender.send(reply);
        } else {
            tracing::debug!(id, "dropping a reply to a request no one waits for");
        }
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Reply>>> {
        // Inserts and removes cannot leave the map inconsistent; a poisoned
        // lock is still usable.
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn replies_reach_their_callers_and_other_lines_pass() {
        let mux = Multiplexer::default();
        let (a, ra) = mux.register();
        let (b, rb) = mux.register();
        let line_b = format!(
            r#"{{"jsonrpc":"2.0","id":"tb-{b}","error":{{"code":-32602,"message":"bad"}}}}"#
        );
        let line_a = format!(r#"{{"result":{{"content":[]}},"jsonrpc":"2.0","id":"tb-{a}"}}"#);
        assert!(mux.route(line_b.as_bytes()));
        assert!(mux.route(line_a.as_bytes()));
        assert!(matches!(
            rb.await.unwrap(),
            Reply::Error(RpcError { code: -32602, .. })
        ));
        match ra.await.unwrap() {
            Reply::Result(raw) => assert_eq!(raw.get(), r#"{"content":[]}"#),
            other => panic!("{other:?}"),
        }
        assert!(!mux.route(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#));
        assert!(!mux.route(
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"tb-1"}}"#
        ));
    }
}
