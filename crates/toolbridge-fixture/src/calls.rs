//! What each tool does when called.

#![expect(
    deprecated,
    reason = "roots/list is SEP-2577-deprecated but still what ask_client probes"
)]

use std::{io::Write, sync::atomic::Ordering, time::Duration};

use axum::http::request::Parts;
use rmcp::{
    ErrorData, RoleServer, ServiceError,
    model::{
        CallToolRequestParams, CallToolResult, ContentBlock, JsonObject, PingRequest, Resource,
        ResourceContents, ServerRequest,
    },
    service::RequestContext,
};
use serde_json::{Value, json};

use crate::{catalog, handler::State};

/// A 1x1 transparent PNG, base64-encoded.
const TINY_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// How long `ask_client` waits for each client answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(10);

/// Typed access to a call's arguments with MCP-style `-32602` errors.
struct Args<'a> {
    tool: &'a str,
    map: JsonObject,
}

impl Args<'_> {
    fn bad(&self, why: impl std::fmt::Display) -> ErrorData {
        ErrorData::invalid_params(
            format!("invalid arguments for tool '{}': {why}", self.tool),
            None,
        )
    }

    fn string(&self, key: &str) -> Result<String, ErrorData> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self.bad(format_args!("`{key}` must be a string"))),
            None => Err(self.bad(format_args!("missing required argument `{key}`"))),
        }
    }

    fn number(&self, key: &str) -> Result<f64, ErrorData> {
        match self.map.get(key).and_then(Value::as_f64) {
            Some(n) => Ok(n),
            None => Err(self.bad(format_args!("`{key}` must be a number"))),
        }
    }

    fn uint(&self, key: &str) -> Result<u64, ErrorData> {
        match self.map.get(key).and_then(Value::as_u64) {
            Some(n) => Ok(n),
            None => Err(self.bad(format_args!("`{key}` must be a non-negative integer"))),
        }
    }

    fn opt_int(&self, key: &str) -> Result<Option<i64>, ErrorData> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_i64()
                .map(Some)
                .ok_or_else(|| self.bad(format_args!("`{key}` must be an integer"))),
        }
    }

    fn opt_string(&self, key: &str) -> Result<Option<String>, ErrorData> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.string(key).map(Some),
        }
    }
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

/// Runs the tool named in `request`.
pub async fn call(
    state: &State,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let args = Args {
        tool: &request.name,
        map: request.arguments.clone().unwrap_or_default(),
    };
    match &*request.name {
        "echo" => Ok(text(format!("Echo: {}", args.string("message")?))),
        "add" => Ok(add(args.number("a")?, args.number("b")?)),
        "env" => {
            let env: serde_json::Map<String, Value> = std::env::vars_os()
                .map(|(k, v)| (k.to_string_lossy().into_owned(), v.to_string_lossy().into()))
                .collect();
            Ok(text(Value::Object(env).to_string()))
        }
        "sleep_echo" => {
            let message = args.string("message")?;
            let ms = args.uint("ms")?;
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(text(format!("Echo: {message}"))),
                () = context.ct.cancelled() => Err(ErrorData::internal_error("sleep_echo cancelled", None)),
            }
        }
        "big" => {
            let len = usize::try_from(args.uint("bytes")?).map_err(|e| args.bad(e))?;
            let body: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            Ok(text(body))
        }
        "crash" => {
            let code = args.opt_int("code")?.unwrap_or(7);
            let code = i32::try_from(code).map_err(|e| args.bad(e))?;
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "fixture: crashing now with code {code}");
            let _ = stderr.flush();
            std::process::exit(code);
        }
        "hang" => {
            context.ct.cancelled().await;
            Err(ErrorData::internal_error("hang cancelled", None))
        }
        "cancelled_requests" => {
            let ids = state.cancelled.lock().expect("state poisoned").clone();
            Ok(text(Value::Array(ids).to_string()))
        }
        "fail" => Ok(CallToolResult::error(vec![ContentBlock::text(
            "something went wrong",
        )])),
        "invalid" => Err(args.bad("always rejects")),
        "mixed" => Ok(mixed()),
        "ask_client" => Ok(text(ask_client(&context).await)),
        "add_tool" => {
            let name = args
                .opt_string("name")?
                .unwrap_or_else(|| "added_tool".into());
            add_tool(state, &name);
            // Legacy sessions get the plain notification; 2026-era ones get
            // it on their subscriptions/listen streams.
            let _ = context.peer.notify_tool_list_changed().await;
            state.tools_changed.notify_waiters();
            Ok(text(format!("added {name}")))
        }
        "schema_empty" | "schema_no_props" | "schema_pydantic" => {
            Ok(CallToolResult::success(vec![
                ContentBlock::text("ok"),
                ContentBlock::text(Value::Object(args.map).to_string()),
            ]))
        }
        "pid" => Ok(text(std::process::id().to_string())),
        "headers" => Ok(text(request_headers(&context).to_string())),
        "initialize_count" => Ok(text(
            state.initializations.load(Ordering::SeqCst).to_string(),
        )),
        "expire_session" => Ok(expire_session(state, &context)),
        name if is_added(state, name) => Ok(text(format!("Echo: {}", args.string("message")?))),
        name => Err(ErrorData::invalid_params(
            format!("unknown tool '{name}'"),
            None,
        )),
    }
}

fn add(a: f64, b: f64) -> CallToolResult {
    let sum = a + b;
    // Integral sums print as integers ("5", {"sum": 5}) like a JS/Python server would.
    let sum = if sum.fract() == 0.0 && sum.abs() < 9_007_199_254_740_992.0 {
        json!(sum as i64)
    } else {
        json!(sum)
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(sum.to_string())]);
    result.structured_content = Some(json!({ "sum": sum }));
    result
}

fn mixed() -> CallToolResult {
    CallToolResult::success(vec![
        ContentBlock::text("first"),
        ContentBlock::image(TINY_PNG, "image/png"),
        ContentBlock::resource(
            ResourceContents::text("hello resource", "file:///fixture/readme.txt")
                .with_mime_type("text/plain"),
        ),
        ContentBlock::resource_link(Resource::new("file:///fixture/link.txt", "link.txt")),
    ])
}

fn outcome(result: Result<Result<String, ServiceError>, tokio::time::error::Elapsed>) -> String {
    match result {
        Ok(Ok(ok)) => ok,
        Ok(Err(ServiceError::McpError(error))) => format!("error {}", error.code.0),
        Ok(Err(other)) => format!("error {other}"),
        Err(_) => "error timeout".into(),
    }
}

async fn ask_client(context: &RequestContext<RoleServer>) -> String {
    let peer = &context.peer;
    let ping = ServerRequest::PingRequest(PingRequest {
        method: Default::default(),
        extensions: Default::default(),
    });
    let ping = tokio::time::timeout(ASK_TIMEOUT, async {
        peer.send_request(ping).await.map(|_| "ok".to_owned())
    })
    .await;
    let roots = tokio::time::timeout(ASK_TIMEOUT, async {
        peer.list_roots()
            .await
            .map(|r| format!("ok ({} roots)", r.roots.len()))
    })
    .await;
    format!("ping: {}; roots/list: {}", outcome(ping), outcome(roots))
}

/// The HTTP request headers of the current request, as `{name: [value…]}`
/// (one entry per value sent); `{}` on stdio, where rmcp attaches no
/// [`Parts`].
fn request_headers(context: &RequestContext<RoleServer>) -> Value {
    let mut headers = serde_json::Map::new();
    if let Some(parts) = context.extensions.get::<Parts>() {
        for (name, value) in &parts.headers {
            let values = headers
                .entry(name.as_str())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(values) = values {
                values.push(String::from_utf8_lossy(value.as_bytes()).into());
            }
        }
    }
    Value::Object(headers)
}

/// Marks the caller's HTTP session so the HTTP layer closes it in rmcp's
/// session manager before its next request (answered 404). Closing it here
/// would lose this call's own response, which travels through the session.
fn expire_session(state: &State, context: &RequestContext<RoleServer>) -> CallToolResult {
    let id = context
        .extensions
        .get::<Parts>()
        .and_then(|parts| parts.headers.get("mcp-session-id"))
        .and_then(|id| id.to_str().ok());
    match id {
        Some(id) => {
            state
                .expiring
                .lock()
                .expect("state poisoned")
                .insert(id.to_owned());
            text(format!("session {id} expires before its next request"))
        }
        None => CallToolResult::error(vec![ContentBlock::text(
            "no session to expire: only legacy (initialize) HTTP sessions have an Mcp-Session-Id",
        )]),
    }
}

fn is_added(state: &State, name: &str) -> bool {
    state
        .added
        .lock()
        .expect("state poisoned")
        .iter()
        .any(|tool| tool.name == name)
}

fn add_tool(state: &State, name: &str) {
    let mut added = state.added.lock().expect("state poisoned");
    if !added.iter().any(|tool| tool.name == name) {
        added.push(rmcp::model::Tool::new(
            name.to_owned(),
            "Echo-like tool added at runtime by add_tool; returns `Echo: {message}`.",
            catalog::echo_schema(),
        ));
    }
}
