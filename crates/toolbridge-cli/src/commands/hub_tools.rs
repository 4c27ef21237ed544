//! `toolbridge tools` in hub mode: every enabled server of the config, its
//! tools under their exposed names.

use std::io::{self, Write};

use anyhow::Context;

use crate::{
    args::ToolsArgs,
    config_file::{self, Overrides},
    exit::Exit,
    hub::{self, Progress},
    output::{self, HubToolJson},
};

/// Connects the config's servers and prints their tools (exposed name,
/// server, description), or with `--json` an array of `{exposed, server,
/// tool, spec}`. `--server` keeps one server's tools.
///
/// Exit code 3 when a server failed to connect (the others' tools are
/// still printed, the failure is on stderr); with `--server`, only that
/// server's failure counts, and it is the error.
///
/// # Errors
/// Config errors, an unknown `--server`, that server's connect error, and
/// failures writing to stdout.
pub async fn run(args: &ToolsArgs) -> anyhow::Result<Exit> {
    let (path, mut config) = config_file::load(args.config.as_deref())?;
    if let Some(name) = &args.only_server {
        config_file::check_server_name(&config, &path, name)?;
    }
    Overrides {
        startup_timeout: args.server.startup_timeout,
        call_timeout: None,
    }
    .apply(&mut config);
    // Every server is connected even with `--server`: exposed names are
    // made unique across all of them, and must match what `call` routes.
    let (mut tools, outcomes) = hub::run(
        &config,
        Progress::FailuresOnly,
        |hub, outcomes| async move { Ok((hub.list_tools(), outcomes)) },
    )
    .await?;
    if let Some(name) = &args.only_server {
        tools.retain(|t| &t.server == name);
        if let Some(failed) = outcomes.into_iter().find(|o| &o.name == name)
            && let Err(error) = failed.result
        {
            return Err(error.into());
        }
        return print(args, &tools).map(|()| Exit::Success);
    }
    print(args, &tools)?;
    if hub::failed(&outcomes).is_empty() {
        Ok(Exit::Success)
    } else {
        Ok(Exit::Failure)
    }
}

fn print(args: &ToolsArgs, tools: &[toolbridge::hub::HubTool]) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    if args.json {
        let json: Vec<HubToolJson<'_>> = tools.iter().map(HubToolJson::from).collect();
        output::write_json(&mut out, &json)
    } else {
        output::write_hub_tool_table(&mut out, tools, output::terminal_width())
    }
    .and_then(|()| out.flush())
    .context("could not write the tool list to stdout")
}
