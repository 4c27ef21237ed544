//! The subcommands. `tools` and `call` have two forms: against one server
//! (`-- COMMAND` / `--url`, connect → work → cleanup) and through the hub
//! (a config file, every enabled server connected, tools by exposed name).
//! `servers`, `config check` and `audit` work from the config file only.
//! Each does its work and prints to stdout.

mod audit;
mod call;
mod config_check;
mod hub_call;
mod hub_tools;
mod servers;
mod tools;

use crate::{
    args::{Command, ConfigCommand, ServerConfig},
    exit::Exit,
};

/// Runs `command`: against `single` when it is the single-server form of
/// `tools` / `call`, in hub mode otherwise.
///
/// # Errors
/// Config, connection, protocol, timeout and output failures, and
/// [`crate::server::Interrupted`].
pub async fn run(command: &Command, single: Option<&ServerConfig>) -> anyhow::Result<Exit> {
    match (command, single) {
        (Command::Tools(args), Some(config)) => tools::run(args, config).await,
        (Command::Tools(args), None) => hub_tools::run(args).await,
        (Command::Call(args), Some(config)) => call::run(args, config).await,
        (Command::Call(args), None) => hub_call::run(args).await,
        (Command::Servers(args), _) => servers::run(args).await,
        (Command::Config(ConfigCommand::Check(args)), _) => config_check::run(args),
        (Command::Audit(args), _) => audit::run(args),
    }
}
