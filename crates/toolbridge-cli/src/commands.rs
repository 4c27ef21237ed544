//! The subcommands: each takes its parsed flags and the validated
//! [`ServerConfig`], does its work between connect and cleanup, and prints
//! to stdout.

mod call;
mod tools;

use crate::{
    args::{Command, ServerConfig},
    exit::Exit,
};

/// Runs `command` against the server described by `config`.
///
/// # Errors
/// Connection, protocol, timeout and output failures, and [`crate::server::Interrupted`].
pub async fn run(command: &Command, config: &ServerConfig) -> anyhow::Result<Exit> {
    match command {
        Command::Tools(args) => tools::run(args, config).await,
        Command::Call(args) => call::run(args, config).await,
    }
}
