//! From a server as written in any format ([`Draft`]) to a validated
//! [`ServerConfig`]: transport inference, placeholder expansion, checks.

use std::{collections::BTreeMap, path::Path, path::PathBuf};

use super::{
    error::ConfigError,
    expand::{ExpandError, expand},
    model::{ServerConfig, TransportConfig},
};
use crate::mcp::McpServerStdioParams;

/// A variable lookup: the value of a name, or `None` when it is unset.
pub(crate) type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A server as written, before expansion and validation: what every
/// format comes down to.
pub(crate) struct Draft {
    pub(crate) kind: Option<String>,
    pub(crate) command: Option<String>,
    pub(crate) args: Vec<String>,
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) inherit_env: Vec<String>,
    pub(crate) inherit_all_env: bool,
    pub(crate) cwd: Option<String>,
    pub(crate) url: Option<String>,
    pub(crate) headers: BTreeMap<String, String>,
    /// Everything beyond the transport (only TOML sets more than
    /// `enabled`); its name and transport are placeholders.
    pub(crate) rest: ServerConfig,
}

/// Resolves the transport, expands placeholders and validates: the
/// finished [`ServerConfig`].
pub(crate) fn finish(
    path: &Path,
    name: String,
    draft: Draft,
    lookup: Lookup<'_>,
) -> Result<ServerConfig, ConfigError> {
    let invalid = |message: String| ConfigError::InvalidServer {
        path: path.to_owned(),
        server: name.clone(),
        message,
    };
    let missing = |needed, hint| ConfigError::MissingEndpoint {
        path: path.to_owned(),
        server: name.clone(),
        needed,
        hint,
    };
    const COMMAND_HINT: &str = "give the program to run, e.g. \"command\": \"npx\"";
    const URL_HINT: &str = "give the server's endpoint, e.g. \"url\": \"https://example.com/mcp\"";
    if name.trim().is_empty() {
        return Err(invalid("a server name must not be empty".to_owned()));
    }
    let kind = match draft.kind.as_deref().map(str::to_ascii_lowercase) {
        Some(kind) => match kind.as_str() {
            "stdio" => "stdio",
            "http" | "streamable-http" | "streamable_http" | "streamablehttp" => "http",
            "sse" => "sse",
            _ => {
                return Err(ConfigError::UnknownTransport {
                    path: path.to_owned(),
                    server: name.clone(),
                    kind: draft.kind.unwrap_or_default(),
                });
            }
        },
        None => match (&draft.command, &draft.url) {
            (Some(_), None) => "stdio",
            (None, Some(_)) => "http",
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "`command` and `url` are both set; keep one, or set the transport type"
                        .to_owned(),
                ));
            }
            (None, None) => {
                return Err(missing(
                    "`command` or `url`",
                    "give a command to run (stdio) or the server's url (http)",
                ));
            }
        },
    };
    let x = Expander {
        path,
        server: &name,
        lookup,
    };
    let transport = if kind == "stdio" {
        if draft.url.is_some() || !draft.headers.is_empty() {
            return Err(invalid(
                "a stdio server takes no `url` or `headers`; remove them, or use an http \
                 transport"
                    .to_owned(),
            ));
        }
        let command = draft
            .command
            .ok_or_else(|| missing("`command`", COMMAND_HINT))?;
        let command = x.one("command", &command)?;
        if command.trim().is_empty() {
            return Err(missing("`command`", COMMAND_HINT));
        }
        let args = (draft.args.iter().enumerate())
            .map(|(i, arg)| x.one(&format!("args[{i}]"), arg))
            .collect::<Result<_, _>>()?;
        TransportConfig::Stdio(McpServerStdioParams {
            command,
            args,
            env: x.map("env", &draft.env)?,
            inherit_env: draft.inherit_env,
            inherit_all_env: draft.inherit_all_env,
            cwd: draft
                .cwd
                .map(|cwd| x.one("cwd", &cwd).map(PathBuf::from))
                .transpose()?,
        })
    } else {
        if draft.command.is_some()
            || !draft.args.is_empty()
            || !draft.env.is_empty()
            || draft.cwd.is_some()
        {
            return Err(invalid(format!(
                "an {kind} server takes no `command`, `args`, `env` or `cwd`; remove them, \
                 or use the stdio transport"
            )));
        }
        let url = draft.url.ok_or_else(|| missing("`url`", URL_HINT))?;
        let url = x.one("url", &url)?;
        if url.trim().is_empty() {
            return Err(missing("`url`", URL_HINT));
        }
        let headers = x.map("header", &draft.headers)?;
        if kind == "http" {
            TransportConfig::Http { url, headers }
        } else {
            TransportConfig::Sse { url, headers }
        }
    };
    let server = ServerConfig {
        name,
        transport,
        ..draft.rest
    };
    validate(path, &server)?;
    Ok(server)
}

/// The checks on the settings beyond the transport.
fn validate(path: &Path, server: &ServerConfig) -> Result<(), ConfigError> {
    let invalid = |message: String| ConfigError::InvalidServer {
        path: path.to_owned(),
        server: server.name.clone(),
        message,
    };
    if server.max_concurrent_calls == Some(0) {
        return Err(invalid(
            "max_concurrent_calls must be at least 1; remove it for no limit".to_owned(),
        ));
    }
    if let Some(prefix) = &server.prefix
        && (prefix.is_empty()
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
    {
        return Err(invalid(format!(
            "prefix '{prefix}' may only use letters, digits, '_' and '-'"
        )));
    }
    if server.restart.base > server.restart.cap {
        return Err(invalid(
            "restart.base_secs is larger than restart.cap_secs; the cap must be at least the base"
                .to_owned(),
        ));
    }
    Ok(())
}

/// Expands one server's fields, turning [`ExpandError`]s into
/// [`ConfigError`]s that name the file, server and field.
struct Expander<'a> {
    path: &'a Path,
    server: &'a str,
    lookup: Lookup<'a>,
}

impl Expander<'_> {
    fn one(&self, field: &str, text: &str) -> Result<String, ConfigError> {
        expand(text, self.lookup).map_err(|e| {
            let (path, server, field) = (
                self.path.to_owned(),
                self.server.to_owned(),
                field.to_owned(),
            );
            match e {
                ExpandError::MissingVar(variable) => ConfigError::MissingVariable {
                    path,
                    server,
                    field,
                    variable,
                },
                ExpandError::MissingInput { id, env_var } => ConfigError::MissingInput {
                    path,
                    server,
                    field,
                    input: id,
                    env_var,
                },
                ExpandError::Bad(message) => ConfigError::BadPlaceholder {
                    path,
                    server,
                    field,
                    message,
                },
            }
        })
    }

    /// Expands the values (never the names) of `env` or `headers`.
    fn map(
        &self,
        what: &str,
        map: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        map.iter()
            .map(|(key, value)| Ok((key.clone(), self.one(&format!("{what} {key}"), value)?)))
            .collect()
    }
}

/// Defaults for [`Draft::rest`]; its name and transport are replaced in
/// [`finish`].
pub(crate) fn placeholder_server() -> ServerConfig {
    ServerConfig::new(
        String::new(),
        TransportConfig::Sse {
            url: String::new(),
            headers: BTreeMap::new(),
        },
    )
}
