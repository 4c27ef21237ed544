//! The README's library example: connect to the filesystem reference
//! server, filter and prefix its tools, register them beside a native tool,
//! call one, clean up. Run with `cargo run -p toolbridge --example readme`
//! (needs `npx`). Kept here so CI compiles it.

use toolbridge::mcp::{BridgeOptions, McpServer, McpServerStdio, mcp_server_to_function_tools};
use toolbridge::{FunctionTool, ToolError, ToolFilter, ToolRegistry};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Shout {
    /// Text to upper-case.
    text: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Connect: spawn the server and run the handshake.
    let fs = McpServerStdio::command(
        "npx",
        [
            "-y",
            "@modelcontextprotocol/server-filesystem@2026.8.31",
            "/tmp",
        ],
    )
    .with_name("fs");
    fs.connect().await?;

    // Filter (by the server's original names) and prefix: read_text_file → fs__read_text_file.
    let bridged = mcp_server_to_function_tools(
        &fs,
        BridgeOptions::default()
            .with_tool_filter(ToolFilter::allow(["read_text_file", "list_directory"]))
            .with_name_prefix("fs"),
    )
    .await?;

    // Register beside a native tool.
    let mut registry = ToolRegistry::new();
    registry.register_all(bridged)?;
    registry.register(FunctionTool::from_typed(
        "shout",
        "Upper-case text.",
        |a: Shout| async move { Ok::<_, ToolError>(a.text.to_uppercase()) },
    ))?;

    // Give the model the specs (OpenAI or Anthropic JSON), dispatch its calls.
    let _for_the_model = registry.openai_tools();
    let listing = registry
        .call("fs__list_directory", serde_json::json!({"path": "/tmp"}))
        .await?;
    println!("{}", listing.text_content());

    // Clean up: stdin EOF, SIGTERM to the process group, SIGKILL after 5 s.
    fs.cleanup().await?;
    Ok(())
}
