//! Finding and loading the hub's config file: `--config FILE` when given,
//! else `toolbridge.toml` in the current directory, else in the user config
//! directory (`$XDG_CONFIG_HOME/toolbridge/` or `~/.config/toolbridge/`).

use std::{
    fmt,
    path::{Path, PathBuf},
    time::Duration,
};

use anyhow::Context;
use toolbridge::config::HubConfig;

/// The file name looked for when no `--config` is given.
pub const FILE_NAME: &str = "toolbridge.toml";

/// No config file was given and none was found; says where it looked.
/// A usage error (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFound {
    /// Every path that was tried, in order.
    looked_in: Vec<PathBuf>,
    /// Why the user config directory was not tried, if it was not.
    no_user_dir: bool,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let places: Vec<String> = self
            .looked_in
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        write!(
            f,
            "no server given and no config file found (looked for {})",
            places.join(" and ")
        )?;
        if self.no_user_dir {
            f.write_str("; neither XDG_CONFIG_HOME nor HOME is set")?;
        }
        f.write_str(
            "; pass `--config FILE`, `-- COMMAND [ARGS...]` for a stdio server \
             or `--url URL` for a Streamable HTTP server",
        )
    }
}

impl std::error::Error for NotFound {}

/// The places searched, in order: `./toolbridge.toml` (made absolute so
/// the message says exactly where), then the user config directory's
/// `toolbridge/toolbridge.toml`. The second is missing when neither
/// `XDG_CONFIG_HOME` (absolute) nor `HOME` is set.
fn candidates() -> (Vec<PathBuf>, bool) {
    let here = std::env::current_dir()
        .map(|dir| dir.join(FILE_NAME))
        .unwrap_or_else(|_| PathBuf::from(FILE_NAME));
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    // XDG Base Directory spec: a relative XDG_CONFIG_HOME is ignored.
    let user_dir = var("XDG_CONFIG_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|home| home.join(".config")));
    match user_dir {
        Some(dir) => (vec![here, dir.join("toolbridge").join(FILE_NAME)], false),
        None => (vec![here], true),
    }
}

/// The config file to use: `explicit` as given, else the first candidate
/// that exists.
///
/// # Errors
/// [`NotFound`] when nothing was given and no candidate exists.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, NotFound> {
    if let Some(path) = explicit {
        return Ok(path.to_owned());
    }
    let (looked_in, no_user_dir) = candidates();
    match looked_in.iter().find(|p| p.is_file()) {
        Some(found) => Ok(found.clone()),
        None => Err(NotFound {
            looked_in,
            no_user_dir,
        }),
    }
}

/// Locates and loads the config file, with placeholders resolved from the
/// environment, and logs which file it is.
///
/// # Errors
/// [`NotFound`], or the [`toolbridge::config::ConfigError`] (which names
/// the file, line, server and variable).
pub fn load(explicit: Option<&Path>) -> anyhow::Result<(PathBuf, HubConfig)> {
    let path = locate(explicit)?;
    tracing::info!(path = %path.display(), "loading config");
    let config = HubConfig::load(&path)?;
    Ok((path, config))
}

/// Flag overrides applied to every server of a loaded config.
#[derive(Debug, Clone, Copy, Default)]
pub struct Overrides {
    /// `--startup-timeout`.
    pub startup_timeout: Option<Duration>,
    /// `call --timeout`.
    pub call_timeout: Option<Duration>,
}

impl Overrides {
    /// Sets the overridden timeouts on every server of `config`.
    pub fn apply(self, config: &mut HubConfig) {
        for server in &mut config.servers {
            if let Some(timeout) = self.startup_timeout {
                server.startup_timeout = Some(timeout);
            }
            if let Some(timeout) = self.call_timeout {
                server.call_timeout = Some(timeout);
            }
        }
    }
}

/// Checks that `--server NAME` names an enabled server of `config`.
///
/// # Errors
/// A [`crate::exit::UsageError`] listing the servers there are.
pub fn check_server_name(config: &HubConfig, path: &Path, name: &str) -> anyhow::Result<()> {
    match config.server(name) {
        Some(server) if server.enabled => Ok(()),
        Some(_) => Err(crate::exit::UsageError(format!(
            "server '{name}' is disabled in {}; enable it to list its tools",
            path.display()
        )))
        .context("--server"),
        None => {
            let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
            Err(crate::exit::UsageError(format!(
                "no server named '{name}' in {} (it has: {})",
                path.display(),
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )))
            .context("--server")
        }
    }
}
