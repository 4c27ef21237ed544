//! `tools/list`: pagination and its loop guard, schema edge cases, unusable
//! tools, and bridging with filter and prefix.

mod common;

use serde_json::json;
use toolbridge::{
    Tool, ToolError, ToolFilter, ToolRegistry,
    mcp::{BridgeOptions, McpError, McpServer, mcp_server_to_function_tools},
};

#[tokio::test]
async fn tool_list_in_three_pages_is_read_to_the_end() {
    let paged = common::fixture(&["--quirk", "paged"]);
    paged.connect().await.unwrap();
    let all = common::fixture(&[]);
    all.connect().await.unwrap();
    let mut paged_names: Vec<_> = paged
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    let mut all_names: Vec<_> = all
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    paged_names.sort();
    all_names.sort();
    assert!(all_names.len() >= 3);
    assert_eq!(paged_names, all_names);
    paged.cleanup().await.unwrap();
    all.cleanup().await.unwrap();
}

#[tokio::test]
async fn a_repeated_cursor_stops_with_a_clear_error() {
    let server = common::fixture(&["--quirk", "repeat-cursor"]);
    server.connect().await.unwrap();
    let error = server.list_tools().await.unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, McpError::Protocol { .. }), "{text}");
    assert!(text.contains("\"page-3\" a second time"), "{text}");
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn unusable_tools_are_skipped_and_the_rest_listed() {
    let server = common::fixture(&["--quirk", "bad-tools"]);
    server.connect().await.unwrap();
    let names: Vec<_> = server
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(names.contains(&"echo".to_owned()), "{names:?}");
    assert!(
        !names
            .iter()
            .any(|n| n == "bad_schema" || n.is_empty() || n.contains(' ')),
        "{names:?}"
    );
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn schemas_are_kept_intact_and_normalised_only_where_missing() {
    let server = common::fixture(&[]);
    server.connect().await.unwrap();
    let tools = mcp_server_to_function_tools(&server, BridgeOptions::default())
        .await
        .unwrap();
    let spec = |name: &str| {
        tools
            .iter()
            .find(|t| t.spec().name == name)
            .unwrap()
            .spec()
            .clone()
    };

    assert_eq!(
        spec("schema_empty").parameters,
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(
        spec("schema_no_props").parameters,
        json!({"type": "object", "properties": {}})
    );

    let listed = server.list_tools().await.unwrap();
    let original = &listed
        .iter()
        .find(|t| t.name == "schema_pydantic")
        .unwrap()
        .input_schema;
    let pydantic = spec("schema_pydantic").parameters;
    assert_eq!(&pydantic, original, "a complete schema must pass unchanged");
    assert_eq!(
        pydantic["properties"]["address"],
        json!({"$ref": "#/$defs/Address"})
    );
    assert_eq!(pydantic["$defs"]["Color"]["enum"], json!(["red", "green"]));
    assert_eq!(
        pydantic["properties"]["nickname"]["anyOf"],
        json!([{"type": "string"}, {"type": "null"}])
    );
    assert_eq!(pydantic["properties"]["color"]["default"], "red");

    let called = tools
        .iter()
        .find(|t| t.spec().name == "schema_pydantic")
        .unwrap()
        .call(json!({"address": {"street": "Main", "city": "X"}, "color": "green"}))
        .await
        .unwrap();
    assert!(
        called.text_content().starts_with("ok"),
        "{}",
        called.text_content()
    );
    server.cleanup().await.unwrap();
}

#[tokio::test]
async fn bridged_tools_are_filtered_prefixed_and_callable_from_a_registry() {
    let server = common::fixture(&[]);
    server.connect().await.unwrap();
    let tools = mcp_server_to_function_tools(
        &server,
        BridgeOptions::default()
            .with_tool_filter(ToolFilter::allow(["echo", "add", "fail"]).and_block(["fail"]))
            .with_name_prefix("fx"),
    )
    .await
    .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register_all(tools).unwrap();
    let mut names = registry.names();
    names.sort();
    assert_eq!(names, ["fx__add", "fx__echo"]);
    let reply = registry
        .call("fx__echo", json!({"message": "r"}))
        .await
        .unwrap();
    assert_eq!(reply.text_content(), "Echo: r");
    let exported: Vec<_> = registry
        .openai_tools()
        .iter()
        .map(|t| t["function"]["name"].clone())
        .collect();
    assert_eq!(exported, [json!("fx__echo"), json!("fx__add")]);

    // A predicate sees the server's original names and its answer is final.
    let by_fn = mcp_server_to_function_tools(
        &server,
        BridgeOptions::default()
            .with_tool_filter(ToolFilter::from_fn(|spec| spec.name.starts_with("schema_")))
            .with_name_prefix("s"),
    )
    .await
    .unwrap();
    assert_eq!(by_fn.len(), 3);
    assert!(
        by_fn
            .iter()
            .all(|t| t.spec().name.starts_with("s__schema_"))
    );

    server.cleanup().await.unwrap();
    let closed = registry
        .call("fx__echo", json!({"message": "r"}))
        .await
        .unwrap_err();
    match &closed {
        ToolError::Call { tool, source } => {
            assert_eq!(tool, "fx__echo");
            let mcp = source
                .downcast_ref::<McpError>()
                .expect("an McpError inside");
            assert!(matches!(mcp, McpError::Closed { .. }), "{mcp}");
        }
        other => panic!("expected a call error, got {other}"),
    }
    assert!(closed.to_string().contains("is closed"), "{closed}");
}
