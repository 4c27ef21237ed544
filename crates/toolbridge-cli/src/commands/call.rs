//! `toolbridge call`: call one tool and print its result.

use std::io::{self, Write};

use anyhow::Context;
use serde_json::Value;
use toolbridge::ToolResult;

use crate::{
    args::{CallArgs, ServerConfig},
    exit::Exit,
    output, server,
};

/// Calls the tool and prints its content (or, with `--json`, the whole
/// result). A result with `isError` is printed too, then exits with 1.
///
/// # Errors
/// Connection, protocol and timeout failures (a JSON-RPC error such as an
/// unknown tool is one), and failures writing to stdout.
pub async fn run(args: &CallArgs, config: &ServerConfig) -> anyhow::Result<Exit> {
    let mcp = server::build(config);
    let arguments = Value::Object(args.args.clone());
    let result = server::run(&*mcp, config, async {
        let result = match args.timeout {
            Some(timeout) => {
                mcp.call_tool_with_timeout(&args.tool, arguments, timeout)
                    .await?
            }
            None => mcp.call_tool(&args.tool, arguments).await?,
        };
        Ok(result)
    })
    .await?;
    print_result(&result, args.json, &args.tool)
}

/// Prints a result (its content, or with `json` the whole result) and
/// picks the exit code: 1 when the tool reported an error (`isError`),
/// saying so on stderr, else 0.
///
/// # Errors
/// Failures writing to stdout.
pub(super) fn print_result(result: &ToolResult, json: bool, tool: &str) -> anyhow::Result<Exit> {
    let mut out = io::stdout().lock();
    if json {
        output::write_json(&mut out, result)
    } else {
        output::write_result_text(&mut out, result)
    }
    .and_then(|()| out.flush())
    .context("could not write the result to stdout")?;

    if result.is_error {
        // The tool's own message is on stdout; say on stderr why the exit
        // code is 1. If stderr is gone, the exit code still says it.
        let _ = writeln!(
            io::stderr(),
            "error: tool '{tool}' reported an error (isError)"
        );
        return Ok(Exit::ToolError);
    }
    Ok(Exit::Success)
}
