//! `toolbridge tools`: list a server's tools, filtered and prefixed the way
//! a program bridging them would see them.

use std::io::{self, Write};

use anyhow::Context;
use toolbridge::{
    ToolFilter, ToolSpec,
    mcp::{BridgeOptions, mcp_server_to_function_tools},
};

use crate::{
    args::{ServerConfig, ToolsArgs},
    exit::Exit,
    output, server,
};

/// Lists the tools and prints them as a table or a JSON array of specs.
///
/// # Errors
/// Connection and protocol failures, and failures writing to stdout.
pub async fn run(args: &ToolsArgs, config: &ServerConfig) -> anyhow::Result<Exit> {
    let mcp = server::build(config);
    let specs = server::run(&*mcp, config, async {
        let tools = mcp_server_to_function_tools(&*mcp, bridge_options(args)).await?;
        Ok(tools.iter().map(|t| t.spec().clone()).collect::<Vec<_>>())
    })
    .await?;
    warn_unmatched_allows(args, &specs);

    let mut out = io::stdout().lock();
    if args.json {
        output::write_json(&mut out, &specs)
    } else {
        output::write_tool_table(&mut out, &specs, output::terminal_width())
    }
    .and_then(|()| out.flush())
    .context("could not write the tool list to stdout")?;
    if specs.is_empty() && !args.json {
        tracing::warn!(server = mcp.name(), "no tools to list");
    }
    Ok(Exit::Success)
}

/// The prefix and the allow / block filter from the flags.
fn bridge_options(args: &ToolsArgs) -> BridgeOptions {
    let mut options = BridgeOptions::default();
    if !args.allow.is_empty() || !args.block.is_empty() {
        let mut filter = ToolFilter::all();
        if !args.allow.is_empty() {
            filter.allowed_tool_names = Some(args.allow.iter().cloned().collect());
        }
        options = options.with_tool_filter(filter.and_block(args.block.iter().cloned()));
    }
    if let Some(prefix) = &args.prefix {
        options = options.with_name_prefix(prefix.clone());
    }
    options
}

/// Warns about `--allow` names that matched no listed tool (a typo, most
/// likely), unless they were blocked as well.
fn warn_unmatched_allows(args: &ToolsArgs, specs: &[ToolSpec]) {
    for name in &args.allow {
        let exposed = match &args.prefix {
            Some(prefix) => format!("{prefix}__{name}"),
            None => name.clone(),
        };
        if !args.block.contains(name) && !specs.iter().any(|s| s.name == exposed) {
            tracing::warn!("--allow {name}: the server has no tool of that name");
        }
    }
}
