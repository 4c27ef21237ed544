//! Reading a config file: format detection, parsing, placeholder expansion
//! and validation into a [`HubConfig`].

use std::{path::Path, time::Duration};

use super::{
    error::{ConfigError, redact_quoted},
    json::{JsonFile, JsonServer, Ordered, strip_jsonc},
    model::{AuditConfig, HubConfig, RestartPolicy},
    resolve::{Draft, Lookup, finish, placeholder_server},
    toml_file::{TomlFile, TomlServer, line_column},
};

/// The supported config file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigFormat {
    /// JSON with a top-level `mcpServers` object: Claude Desktop's
    /// `claude_desktop_config.json`, Claude Code's and Cursor's `.mcp.json`.
    McpServers,
    /// VS Code's `.vscode/mcp.json`: top-level `servers` and `inputs`.
    VsCode,
    /// `toolbridge.toml`.
    Toolbridge,
}

impl ConfigFormat {
    /// Tells the format of a file: a `.toml` extension is
    /// [`Toolbridge`](Self::Toolbridge); otherwise the JSON (comments
    /// allowed) must have `mcpServers` or `servers` at the top.
    ///
    /// # Errors
    /// [`ConfigError::Syntax`] for invalid JSON, [`ConfigError::UnknownFormat`]
    /// when neither key (or both) is there.
    pub fn detect(path: &Path, text: &str) -> Result<Self, ConfigError> {
        if is_toml(path) {
            return Ok(Self::Toolbridge);
        }
        json_format(path, &parse_json(path, text)?)
    }
}

/// The process environment as a lookup (`std::env::var`, `None` for unset
/// or non-UTF-8 values), for [`HubConfig::load_with`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl HubConfig {
    /// Loads `path`, detecting its format, with placeholders resolved from
    /// the process environment.
    ///
    /// # Errors
    /// As [`HubConfig::load_with`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        Self::load_with(path, &process_env)
    }

    /// Loads `path`, detecting its format ([`ConfigFormat::detect`]), with
    /// placeholders resolved through `lookup`.
    ///
    /// # Errors
    /// [`ConfigError::Read`] when the file cannot be read; otherwise as
    /// [`HubConfig::parse`].
    pub fn load_with(
        path: impl AsRef<Path>,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        if is_toml(path) {
            return parse_toml(path, &text, lookup);
        }
        let file = parse_json(path, &text)?;
        let format = json_format(path, &file)?;
        from_json(path, file, format, lookup)
    }

    /// Parses `text` as `format`; `path` is used in errors (and, for VS
    /// Code, to resolve `${workspaceFolder}`).
    ///
    /// # Errors
    /// [`ConfigError::Syntax`] (with line and column) for malformed
    /// files; [`ConfigError::DuplicateServer`],
    /// [`ConfigError::UnknownTransport`], [`ConfigError::MissingEndpoint`],
    /// [`ConfigError::MissingVariable`], [`ConfigError::MissingInput`],
    /// [`ConfigError::BadPlaceholder`] or [`ConfigError::InvalidServer`]
    /// for the first server that is wrong; [`ConfigError::UnknownFormat`]
    /// when a JSON file lacks the top-level key of `format`.
    pub fn parse(
        text: &str,
        format: ConfigFormat,
        path: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        match format {
            ConfigFormat::Toolbridge => parse_toml(path, text, lookup),
            json => from_json(path, parse_json(path, text)?, json, lookup),
        }
    }
}

fn is_toml(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("toml"))
}

fn parse_json(path: &Path, text: &str) -> Result<JsonFile, ConfigError> {
    serde_json::from_str(&strip_jsonc(text)).map_err(|e| {
        let message = e.to_string();
        // serde_json appends " at line L column C"; those are fields here.
        let message = match message.rfind(" at line ") {
            Some(at) => &message[..at],
            None => &message,
        };
        ConfigError::Syntax {
            path: path.to_owned(),
            format: "JSON",
            line: e.line(),
            column: e.column(),
            message: redact_quoted(message),
        }
    })
}

fn json_format(path: &Path, file: &JsonFile) -> Result<ConfigFormat, ConfigError> {
    match (&file.mcp_servers, &file.servers) {
        (Some(_), None) => Ok(ConfigFormat::McpServers),
        (None, Some(_)) => Ok(ConfigFormat::VsCode),
        _ => Err(ConfigError::UnknownFormat {
            path: path.to_owned(),
        }),
    }
}

fn from_json(
    path: &Path,
    file: JsonFile,
    format: ConfigFormat,
    lookup: Lookup<'_>,
) -> Result<HubConfig, ConfigError> {
    let servers = match format {
        ConfigFormat::VsCode => file.servers,
        _ => file.mcp_servers,
    };
    let servers = servers.ok_or_else(|| ConfigError::UnknownFormat {
        path: path.to_owned(),
    })?;
    let workspace = workspace_folder(path);
    let vscode_lookup = |name: &str| match lookup(name) {
        None if name == "workspaceFolder" => Some(workspace.clone()),
        value => value,
    };
    let lookup: Lookup<'_> = match format {
        ConfigFormat::VsCode => &vscode_lookup,
        _ => lookup,
    };
    let servers = check_duplicates(path, servers)?
        .into_iter()
        .map(|(name, server)| {
            if server.env_file.is_some() {
                tracing::warn!(server = %name, "`envFile` is not supported and is ignored");
            }
            finish(path, name, draft_from_json(server), lookup)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HubConfig {
        servers,
        command_allowlist: None,
        audit: None,
    })
}

/// The folder `${workspaceFolder}` stands for: the one holding `.vscode/`
/// when the file is in it, else the file's own folder.
fn workspace_folder(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let dir = absolute.parent().unwrap_or(Path::new("."));
    let dir = match dir.file_name() {
        Some(name) if name == ".vscode" => dir.parent().unwrap_or(dir),
        _ => dir,
    };
    dir.display().to_string()
}

fn parse_toml(path: &Path, text: &str, lookup: Lookup<'_>) -> Result<HubConfig, ConfigError> {
    let file: TomlFile = toml::from_str(text).map_err(|e| {
        let (line, column) = e
            .span()
            .map_or((0, 0), |span| line_column(text, span.start));
        ConfigError::Syntax {
            path: path.to_owned(),
            format: "TOML",
            line,
            column,
            // `message()`, not `Display`: the latter quotes the source line,
            // which may hold a secret.
            message: redact_quoted(e.message().trim_end()),
        }
    })?;
    let servers = check_duplicates(path, file.servers)?
        .into_iter()
        .map(|(name, server)| {
            let draft = draft_from_toml(path, &name, server)?;
            finish(path, name, draft, lookup)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HubConfig {
        servers,
        command_allowlist: file.command_allowlist,
        audit: file.audit.map(|audit| relative_to_file(path, audit)),
    })
}

/// An audit path written relative is relative to the config file's folder
/// (as VS Code's `${workspaceFolder}` is), not to wherever toolbridge runs.
fn relative_to_file(path: &Path, audit: AuditConfig) -> AuditConfig {
    let base = path.parent().unwrap_or_else(|| Path::new(""));
    let anchor = |p: std::path::PathBuf| if p.is_relative() { base.join(p) } else { p };
    match audit {
        AuditConfig::Sqlite { path: Some(p) } => AuditConfig::Sqlite {
            path: Some(anchor(p)),
        },
        AuditConfig::Jsonl { path: p } => AuditConfig::Jsonl { path: anchor(p) },
        other => other,
    }
}

fn check_duplicates<T>(path: &Path, map: Ordered<T>) -> Result<Vec<(String, T)>, ConfigError> {
    match map.duplicates.into_iter().next() {
        Some(server) => Err(ConfigError::DuplicateServer {
            path: path.to_owned(),
            server,
        }),
        None => Ok(map.entries),
    }
}

fn draft_from_json(server: JsonServer) -> Draft {
    let mut rest = placeholder_server();
    rest.enabled = !server.disabled;
    Draft {
        kind: server.kind,
        command: server.command,
        args: server.args,
        env: server.env,
        inherit_env: Vec::new(),
        inherit_all_env: false,
        cwd: server.cwd,
        url: server.url,
        headers: server.headers,
        rest,
    }
}

fn draft_from_toml(path: &Path, name: &str, server: TomlServer) -> Result<Draft, ConfigError> {
    let invalid = |message: String| ConfigError::InvalidServer {
        path: path.to_owned(),
        server: name.to_owned(),
        message,
    };
    let secs = |key: &str, value: Option<f64>| -> Result<Option<Duration>, ConfigError> {
        value
            .map(|secs| {
                Duration::try_from_secs_f64(secs).map_err(|_| {
                    invalid(format!("{key} must be a number of seconds ≥ 0, got {secs}"))
                })
            })
            .transpose()
    };
    let mut rest = placeholder_server();
    rest.enabled = server.enabled.unwrap_or(true);
    rest.allow_tools = server.allow_tools;
    rest.block_tools = server.block_tools;
    rest.prefix = server.prefix;
    rest.startup_timeout = secs("startup_timeout_secs", server.startup_timeout_secs)?;
    rest.call_timeout = secs("call_timeout_secs", server.call_timeout_secs)?;
    rest.max_concurrent_calls = server.max_concurrent_calls;
    if let Some(restart) = server.restart {
        let defaults = RestartPolicy::default();
        rest.restart = RestartPolicy {
            base: secs("restart.base_secs", restart.base_secs)?.unwrap_or(defaults.base),
            cap: secs("restart.cap_secs", restart.cap_secs)?.unwrap_or(defaults.cap),
            max_attempts: restart.max_attempts.unwrap_or(defaults.max_attempts),
        };
    }
    Ok(Draft {
        kind: server.transport,
        command: server.command,
        args: server.args,
        env: server.env,
        inherit_env: server.inherit_env,
        inherit_all_env: server.inherit_all_env,
        cwd: server.cwd,
        url: server.url,
        headers: server.headers,
        rest,
    })
}
