//! The validated config types: what the hub starts servers from.

use std::{collections::BTreeMap, collections::HashSet, path::PathBuf, time::Duration};

use serde::{Deserialize, Serialize};

use crate::ToolFilter;
use crate::mcp::{McpServerOptions, McpServerStdioParams, McpServerStreamableHttpParams};

/// Everything one config file says: the servers, in file order, and the
/// hub-wide settings (only `toolbridge.toml` has those; the JSON formats
/// leave them `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HubConfig {
    /// The servers, in the order of the file. Names are unique.
    #[serde(default)]
    pub servers: Vec<ServerConfig>,
    /// Launcher names or paths allowed for servers added programmatically
    /// (the hub's command policy); replaces the default list when set.
    /// Parsed only: the policy itself lives in the hub.
    #[serde(default)]
    pub command_allowlist: Option<Vec<String>>,
    /// Where the audit log goes; the hub's default when unset.
    #[serde(default)]
    pub audit: Option<AuditConfig>,
}

impl HubConfig {
    /// The server named `name`, if any.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// The servers whose `enabled` is true, in file order.
    pub fn enabled_servers(&self) -> impl Iterator<Item = &ServerConfig> {
        self.servers.iter().filter(|s| s.enabled)
    }
}

/// Where the hub writes its audit log (`audit = { sink = "…", path = "…" }`
/// in `toolbridge.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "sink", rename_all = "lowercase", deny_unknown_fields)]
#[non_exhaustive]
pub enum AuditConfig {
    /// An embedded SQLite database: at `path`, or in the platform data
    /// directory when unset.
    Sqlite {
        /// The database file.
        #[serde(default)]
        path: Option<PathBuf>,
    },
    /// JSON lines appended to a file, for log shippers.
    Jsonl {
        /// The file to append to.
        path: PathBuf,
    },
    /// JSON lines on standard output.
    Stdout,
    /// No audit log.
    Off,
}

/// One MCP server as the hub should run it, with every placeholder
/// resolved.
///
/// Mirrors one entry of `mcpServers` (Claude Desktop, Claude Code,
/// Cursor), of VS Code's `servers`, or one `[servers.NAME]` table of
/// `toolbridge.toml`; the fields beyond transport come from the TOML only
/// and take their defaults elsewhere.
///
/// Its serde form (`transport` tags the variant, durations as
/// `{secs, nanos}`) is for passing a resolved config between components,
/// not a file format; it carries values unmasked. For display use
/// [`ServerConfig::describe_masked`] or `Debug`, which mask secrets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerConfig {
    /// The server's name: the key of its entry. Unique within a config.
    pub name: String,
    /// How to reach it.
    pub transport: TransportConfig,
    /// Whether the hub starts it. Default true; `"disabled": true` in JSON
    /// formats, `enabled = false` in TOML.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Only these tools are exposed, when set.
    #[serde(default)]
    pub allow_tools: Option<Vec<String>>,
    /// These tools are never exposed.
    #[serde(default)]
    pub block_tools: Option<Vec<String>>,
    /// The prefix for `{prefix}__{tool}` exposed names; only
    /// `[A-Za-z0-9_-]`.
    #[serde(default)]
    pub prefix: Option<String>,
    /// From spawn until the handshake is done; the default of
    /// [`McpServerOptions`] (60 s) when unset.
    #[serde(default)]
    pub startup_timeout: Option<Duration>,
    /// For one request; the default of [`McpServerOptions`] (30 s) when
    /// unset.
    #[serde(default)]
    pub call_timeout: Option<Duration>,
    /// How a server that dies is restarted.
    #[serde(default)]
    pub restart: RestartPolicy,
    /// At most this many calls in flight to this server at once; no limit
    /// when unset. Never 0.
    #[serde(default)]
    pub max_concurrent_calls: Option<usize>,
}

fn default_true() -> bool {
    true
}

impl ServerConfig {
    /// A server with `name` and `transport`, and defaults for the rest:
    /// enabled, no filter, no prefix, default timeouts and restart policy,
    /// no concurrency cap.
    pub fn new(name: impl Into<String>, transport: TransportConfig) -> Self {
        Self {
            name: name.into(),
            transport,
            enabled: true,
            allow_tools: None,
            block_tools: None,
            prefix: None,
            startup_timeout: None,
            call_timeout: None,
            restart: RestartPolicy::default(),
            max_concurrent_calls: None,
        }
    }

    /// The tool filter from `allow_tools` and `block_tools` (each `None`
    /// when unset, so an unset list filters nothing).
    pub fn tool_filter(&self) -> ToolFilter {
        let set = |names: &Option<Vec<String>>| {
            names
                .as_ref()
                .map(|names| names.iter().cloned().collect::<HashSet<_>>())
        };
        ToolFilter {
            allowed_tool_names: set(&self.allow_tools),
            blocked_tool_names: set(&self.block_tools),
            filter_func: None,
        }
    }

    /// The connection options: the configured timeouts, and
    /// [`McpServerOptions::default`] for whatever is unset.
    pub fn options(&self) -> McpServerOptions {
        let defaults = McpServerOptions::default();
        McpServerOptions {
            startup_timeout: self.startup_timeout.unwrap_or(defaults.startup_timeout),
            call_timeout: self.call_timeout.unwrap_or(defaults.call_timeout),
            ..defaults
        }
    }
}

/// How to reach a server: one variant per transport, tagged by
/// `transport` in serde form (`"stdio"`, `"http"`, `"sse"`).
///
/// Its `Debug` form masks env and header values (see
/// [`mask_secret`](super::mask_secret)).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "lowercase")]
#[non_exhaustive]
pub enum TransportConfig {
    /// A child process speaking JSON-RPC on stdin / stdout (argv, never a
    /// shell).
    Stdio(McpServerStdioParams),
    /// Streamable HTTP (MCP specification 2025-11-25, "Transports").
    Http {
        /// The MCP endpoint, e.g. `https://example.com/mcp`.
        url: String,
        /// Extra headers for every request, e.g. `Authorization`.
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
    /// The legacy HTTP+SSE transport (MCP specification 2024-11-05). Parsed
    /// so such entries load; the hub has no client for it yet.
    Sse {
        /// The SSE endpoint, e.g. `https://example.com/sse`.
        url: String,
        /// Extra headers for every request.
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
}

impl TransportConfig {
    /// The transport's name as written in config: `"stdio"`, `"http"` or
    /// `"sse"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio(_) => "stdio",
            Self::Http { .. } => "http",
            Self::Sse { .. } => "sse",
        }
    }

    /// The parameters for
    /// [`McpServerStreamableHttp`](crate::mcp::McpServerStreamableHttp),
    /// for the `Http` variant only.
    pub fn streamable_http_params(&self) -> Option<McpServerStreamableHttpParams> {
        match self {
            Self::Http { url, headers } => Some(McpServerStreamableHttpParams {
                url: url.clone(),
                headers: headers.clone(),
            }),
            _ => None,
        }
    }
}

/// Exponential backoff for restarting a server that died: the n-th retry
/// waits `base * 2^(n-1)`, never more than `cap`, and after `max_attempts`
/// failed restarts in a row the server is `failed`.
///
/// In `toolbridge.toml`: `restart = { base_secs = 0.5, cap_secs = 30,
/// max_attempts = 5 }`, each key optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestartPolicy {
    /// The first delay. Default 500 ms.
    pub base: Duration,
    /// The longest delay. Default 30 s. Never less than `base`.
    pub cap: Duration,
    /// Restarts tried before giving up; 0 never restarts. Default 5.
    pub max_attempts: u32,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            max_attempts: 5,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio() -> TransportConfig {
        TransportConfig::Stdio(McpServerStdioParams {
            command: "npx".into(),
            ..Default::default()
        })
    }

    #[test]
    fn serde_form_round_trips() {
        let mut server = ServerConfig::new("a", stdio());
        server.prefix = Some("p".into());
        let json = serde_json::to_value(&server).unwrap();
        assert_eq!(json["transport"]["transport"], "stdio");
        assert_eq!(
            serde_json::from_value::<ServerConfig>(json).unwrap(),
            server
        );
    }

    #[test]
    fn options_fill_unset_timeouts_with_defaults() {
        let mut server = ServerConfig::new("a", stdio());
        assert_eq!(server.options(), McpServerOptions::default());
        server.call_timeout = Some(Duration::from_secs(5));
        let options = server.options();
        assert_eq!(options.call_timeout, Duration::from_secs(5));
        assert_eq!(
            options.startup_timeout,
            McpServerOptions::default().startup_timeout
        );
    }

    #[test]
    fn tool_filter_uses_allow_and_block_lists() {
        let mut server = ServerConfig::new("a", stdio());
        let filter = server.tool_filter();
        assert!(filter.allowed_tool_names.is_none() && filter.blocked_tool_names.is_none());
        server.allow_tools = Some(vec!["read".into(), "write".into()]);
        server.block_tools = Some(vec!["write".into()]);
        let filter = server.tool_filter();
        assert_eq!(filter.allowed_tool_names.map(|s| s.len()), Some(2));
        assert!(
            filter
                .blocked_tool_names
                .is_some_and(|s| s.contains("write"))
        );
    }
}
