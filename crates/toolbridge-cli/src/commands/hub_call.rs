//! `toolbridge call` in hub mode: a tool by its exposed name, routed by the
//! hub to its server.

use serde_json::Value;
use toolbridge::hub::HubError;

use crate::{
    args::CallArgs,
    config_file::{self, Overrides},
    exit::{Exit, ServersDown},
    hub::{self, Progress},
};

/// Connects the config's servers, calls the tool by its exposed name and
/// prints the result as the single-server `call` does (exit 1 for
/// `isError`).
///
/// An exposed name no server has is a usage error (exit 2) when every
/// server connected, and a failure (exit 3) when some did not, since the
/// tool may be on one of those. `--timeout` replaces every server's call
/// timeout.
///
/// # Errors
/// Config errors, [`HubError`]s (unknown name, server unavailable, the
/// call's own failure or timeout), and failures writing to stdout.
pub async fn run(args: &CallArgs) -> anyhow::Result<Exit> {
    let (_, mut config) = config_file::load(args.config.as_deref())?;
    Overrides {
        startup_timeout: args.server.startup_timeout,
        call_timeout: args.timeout,
    }
    .apply(&mut config);
    let arguments = Value::Object(args.args.clone());
    let result = hub::run(
        &config,
        Progress::FailuresOnly,
        |hub, outcomes| async move {
            match hub.call(&args.tool, arguments).await {
                Ok(result) => Ok(result),
                Err(error @ HubError::NoExposedTool { .. }) => {
                    let failed = hub::failed(&outcomes);
                    if failed.is_empty() {
                        Err(error.into())
                    } else {
                        Err(anyhow::Error::new(error).context(ServersDown {
                            tool: args.tool.clone(),
                            failed,
                        }))
                    }
                }
                Err(error) => Err(error.into()),
            }
        },
    )
    .await?;
    super::call::print_result(&result, args.json, &args.tool)
}
