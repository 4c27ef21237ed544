//! The static tool catalog: names, descriptions and JSON Schemas.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        other => panic!("schema must be a JSON object, got {other}"),
    }
}

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    Tool::new(name, description, object(schema))
}

fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

/// Input schema shared by `echo` and tools added at runtime by `add_tool`.
pub fn echo_schema() -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "properties": {
            "message": { "type": "string", "description": "Text to echo back." }
        },
        "required": ["message"],
    }))
}

/// Every built-in tool, in listing order.
pub fn builtin_tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "echo",
            "Returns one text content `Echo: {message}`.",
            echo_schema(),
        ),
        tool(
            "add",
            "Adds two numbers; returns the sum as text and as structuredContent {\"sum\": N}.",
            json!({
                "type": "object",
                "properties": {
                    "a": { "type": "number", "description": "First addend." },
                    "b": { "type": "number", "description": "Second addend." }
                },
                "required": ["a", "b"],
            }),
        )
        .with_raw_output_schema(object(json!({
            "type": "object",
            "properties": { "sum": { "type": "number", "description": "a + b" } },
            "required": ["sum"],
        }))),
        tool(
            "env",
            "Returns the server process's full environment as a JSON object (name -> value) in one text content.",
            no_args(),
        ),
        tool(
            "sleep_echo",
            "Sleeps `ms` milliseconds, then returns `Echo: {message}`. Calls run concurrently, so replies can arrive out of order.",
            json!({
                "type": "object",
                "properties": {
                    "message": { "type": "string", "description": "Text to echo back." },
                    "ms": { "type": "integer", "minimum": 0, "description": "Delay in milliseconds." }
                },
                "required": ["message", "ms"],
            }),
        ),
        tool(
            "big",
            "Returns one text content of exactly `bytes` bytes; byte i is b'a' + (i % 26), i.e. \"abc...xyzabc...\".",
            json!({
                "type": "object",
                "properties": {
                    "bytes": { "type": "integer", "minimum": 0, "description": "Length of the text in bytes." }
                },
                "required": ["bytes"],
            }),
        ),
        tool(
            "crash",
            "Writes `fixture: crashing now with code N` to stderr and exits the process with code N (default 7) without answering.",
            json!({
                "type": "object",
                "properties": {
                    "code": { "type": "integer", "default": 7, "description": "Process exit code." }
                },
            }),
        ),
        tool(
            "hang",
            "Never answers; only a notifications/cancelled (or disconnect) ends it.",
            no_args(),
        ),
        tool(
            "cancelled_requests",
            "Returns a JSON array of the request ids named by every notifications/cancelled received so far.",
            no_args(),
        ),
        tool(
            "fail",
            "Returns a tool-level error: isError true, text `something went wrong`.",
            no_args(),
        ),
        tool(
            "invalid",
            "Always fails with JSON-RPC error -32602 (invalid params).",
            no_args(),
        ),
        tool(
            "mixed",
            "Returns, in order: text `first`, a 1x1 PNG image, an embedded text resource file:///fixture/readme.txt, and a resource link file:///fixture/link.txt.",
            no_args(),
        ),
        tool(
            "ask_client",
            "Sends `ping` then `roots/list` to the client mid-call and reports `ping: <outcome>; roots/list: <outcome>` (`ok`, `ok (N roots)` or `error <code>`). rmcp forbids server-to-client requests on protocol 2026-07-28, where both report `error -32600`; use a legacy (initialize) session.",
            no_args(),
        ),
        tool(
            "add_tool",
            "Adds an echo-like tool with the given name to tools/list, sends notifications/tools/list_changed, and returns `added {name}`.",
            json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string", "default": "added_tool", "description": "Name of the tool to add." }
                },
            }),
        ),
        tool(
            "schema_empty",
            "Schema edge case: inputSchema is exactly {}. Returns `ok` and the arguments as JSON.",
            json!({}),
        ),
        tool(
            "schema_no_props",
            "Schema edge case: inputSchema is {\"type\":\"object\"}. Returns `ok` and the arguments as JSON.",
            json!({ "type": "object" }),
        ),
        tool(
            "schema_pydantic",
            "Schema edge case: a pydantic-style schema with $defs, $ref, anyOf-null and defaults. Returns `ok` and the arguments as JSON.",
            pydantic_schema(),
        ),
        tool("pid", "Returns the server's process id as text.", no_args()),
        tool(
            "headers",
            "Returns the HTTP request headers of this tools/call request as JSON text, {\"name\": [\"value\", ...]} with lowercase names; {} on stdio.",
            no_args(),
        ),
        tool(
            "initialize_count",
            "Returns how many initialize requests this server process has handled (over all sessions) as text.",
            no_args(),
        ),
        tool(
            "expire_session",
            "Expires the caller's legacy HTTP session: it is closed in rmcp's session manager when its next request arrives, which rmcp then answers with 404. A tool error on stdio and in the stateless 2026 era (no Mcp-Session-Id).",
            no_args(),
        ),
    ]
}

fn pydantic_schema() -> Value {
    json!({
        "$defs": {
            "Address": {
                "properties": {
                    "street": { "title": "Street", "type": "string" },
                    "city": { "title": "City", "type": "string" }
                },
                "required": ["street", "city"],
                "title": "Address",
                "type": "object"
            },
            "Color": { "enum": ["red", "green"], "title": "Color", "type": "string" }
        },
        "properties": {
            "address": { "$ref": "#/$defs/Address" },
            "nickname": {
                "anyOf": [{ "type": "string" }, { "type": "null" }],
                "default": null,
                "title": "Nickname"
            },
            "color": { "$ref": "#/$defs/Color", "default": "red" }
        },
        "required": ["address"],
        "title": "schema_pydanticArguments",
        "type": "object"
    })
}
