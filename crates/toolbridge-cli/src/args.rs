//! Command-line arguments: the clap definitions, the parsers that check each
//! flag value, and [`ServerConfig`], the validated description of the
//! server to talk to in single-server mode.
//!
//! Everything a user can get wrong is caught here, before any process is
//! spawned or any connection opened (ripgrep's "low-level args → high-level
//! args" split): bad flags are clap errors and exit with code 2.

use std::{collections::BTreeMap, path::PathBuf, time::Duration};

use clap::{ArgAction, Args, CommandFactory, Parser, Subcommand, error::ErrorKind};
use serde_json::{Map, Value};
use toolbridge::mcp::{McpServerStdioParams, McpServerStreamableHttpParams};

/// List and call the tools of MCP servers.
///
/// One server: give it as `-- COMMAND [ARGS…]` (a local program speaking MCP
/// on stdio) or as `--url URL` (a Streamable HTTP endpoint).
///
/// Many servers (hub mode): give a config file with `--config FILE`
/// (toolbridge.toml, Claude Desktop's claude_desktop_config.json, a
/// `.mcp.json` or VS Code's `.vscode/mcp.json`); tools are then called by
/// their exposed names, e.g. `mcp_github_search_repositories`. Without
/// `--config`, a `-- COMMAND` or `--url`, toolbridge uses ./toolbridge.toml,
/// else $XDG_CONFIG_HOME/toolbridge/toolbridge.toml (or
/// ~/.config/toolbridge/toolbridge.toml).
///
/// Exit codes: 0 success; 1 the tool reported an error (isError); 2 usage or
/// configuration error (also an unknown tool or server name in hub mode); 3
/// connection, protocol or timeout error (`servers`: a server failed to
/// connect); 130/143 interrupted by SIGINT/SIGTERM.
#[derive(Debug, Parser)]
#[command(name = "toolbridge", version, after_help = EXAMPLES_TOP)]
pub struct Cli {
    /// Log more to stderr: -v for info (including the server's own stderr),
    /// -vv for debug, -vvv for debug from every crate. `RUST_LOG` overrides.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the tools of one server, or of every server in a config file.
    #[command(after_help = EXAMPLES_TOOLS)]
    Tools(ToolsArgs),
    /// Call one tool and print its result.
    #[command(after_help = EXAMPLES_CALL)]
    Call(CallArgs),
    /// Connect every enabled server of a config file and show their state.
    #[command(after_help = EXAMPLES_SERVERS)]
    Servers(ServersArgs),
    /// Work with config files.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Show the audit log of connects, calls and disconnects.
    #[command(after_help = EXAMPLES_AUDIT)]
    Audit(AuditArgs),
}

const EXAMPLES_TOP: &str = "Examples:
  toolbridge tools -- npx -y @modelcontextprotocol/server-everything
  toolbridge servers --config ~/.config/Claude/claude_desktop_config.json
  toolbridge call mcp_everything_echo --args '{\"message\":\"hi\"}'";

const EXAMPLES_TOOLS: &str = "Examples:
  toolbridge tools -- npx -y @modelcontextprotocol/server-everything
  toolbridge tools --json --prefix ev --allow echo -- mcp-server-everything
  toolbridge tools --url http://127.0.0.1:3001/mcp -H 'Authorization: Bearer TOKEN'
  toolbridge tools --config toolbridge.toml --server github
  toolbridge tools --json          # every server of ./toolbridge.toml";

const EXAMPLES_CALL: &str = "Examples:
  toolbridge call echo --args '{\"message\":\"hi\"}' -- npx -y @modelcontextprotocol/server-everything
  toolbridge call get-sum --args '{\"a\":1,\"b\":2}' --json --url http://127.0.0.1:3001/mcp
  toolbridge call mcp_everything_echo --config toolbridge.toml --args '{\"message\":\"hi\"}'
  toolbridge call mcp_filesystem_read_file --args @args.json   # ./toolbridge.toml";

const EXAMPLES_SERVERS: &str = "Examples:
  toolbridge servers --config toolbridge.toml
  toolbridge servers --config .mcp.json --startup-timeout 120

One line per server goes to stderr as it becomes ready or fails, then the
table to stdout. Exit code 0 when every enabled server connected, 3 when
any failed.";

const EXAMPLES_AUDIT: &str = "Examples:
  toolbridge audit --since 1h
  toolbridge audit --config toolbridge.toml --server github --tool search_repositories
  toolbridge audit --json --limit 100 | jq .

The log is the one the config's `audit = { sink = \"...\", path = \"...\" }`
names; without one (or without any config file) the default SQLite
database ($XDG_DATA_HOME/toolbridge/audit.sqlite3).";

impl Command {
    /// The single server this command talks to: `Some` for `tools` / `call`
    /// given `-- COMMAND` or `--url`, `None` for hub mode (every other
    /// command, or `tools` / `call` with `--config` or with no server at
    /// all, which then looks for a config file).
    ///
    /// # Errors
    /// A clap usage error ("no server given") when single-server flags
    /// such as `--env` or `--prefix` come without a server, and as
    /// [`ServerArgs::to_config`].
    pub fn single_server(&self) -> Result<Option<ServerConfig>, clap::Error> {
        let (server, config, single_only) = match self {
            Self::Tools(args) => (
                &args.server,
                &args.config,
                args.prefix.is_some() || !args.allow.is_empty() || !args.block.is_empty(),
            ),
            Self::Call(args) => (&args.server, &args.config, false),
            Self::Servers(_) | Self::Config(_) | Self::Audit(_) => return Ok(None),
        };
        if config.is_some() {
            return Ok(None);
        }
        if server.url.is_some()
            || !server.command.is_empty()
            || single_only
            || server.has_single_only_flags()
        {
            // With no server at all `to_config` gives the usage error.
            return server.to_config().map(Some);
        }
        Ok(None)
    }
}

/// `toolbridge tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// Print the tool specs (after prefix and filters) as a JSON array.
    #[arg(long)]
    pub json: bool,

    /// Expose the tools as PREFIX__name.
    #[arg(long, value_name = "PREFIX", value_parser = parse_prefix)]
    pub prefix: Option<String>,

    /// Keep only this tool (the server's name, before any prefix); repeatable.
    #[arg(long = "allow", value_name = "NAME")]
    pub allow: Vec<String>,

    /// Leave out this tool (the server's name, before any prefix); repeatable.
    #[arg(long = "block", value_name = "NAME")]
    pub block: Vec<String>,

    /// Hub mode: the servers of this config file (toolbridge.toml,
    /// claude_desktop_config.json, .mcp.json, .vscode/mcp.json).
    #[arg(long, value_name = "FILE", conflicts_with_all = SINGLE_SERVER_ARGS)]
    pub config: Option<PathBuf>,

    /// Hub mode: only this server's tools.
    #[arg(
        long = "server",
        value_name = "NAME",
        conflicts_with_all = SINGLE_SERVER_ARGS
    )]
    pub only_server: Option<String>,

    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// The flags that describe one server (or its tools), which hub mode takes
/// from the config file instead.
const SINGLE_SERVER_ARGS: [&str; 9] = [
    "url", "headers", "env", "cwd", "name", "command", "prefix", "allow", "block",
];

/// [`SINGLE_SERVER_ARGS`] without the ones only `tools` has.
const SINGLE_SERVER_CONNECTION_ARGS: [&str; 6] =
    ["url", "headers", "env", "cwd", "name", "command"];

/// `toolbridge call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool's name on the server; in hub mode its exposed name, as
    /// `toolbridge tools` lists it (e.g. mcp_github_search_repositories).
    #[arg(value_name = "TOOL")]
    pub tool: String,

    /// The arguments, as a JSON object; `@FILE` reads them from a file and
    /// `-` from standard input (for arguments too large for a command line).
    #[arg(long, value_name = "JSON", default_value = "{}", value_parser = parse_json_object)]
    pub args: Map<String, Value>,

    /// Give up on the call after SECS seconds; the server is sent a
    /// cancellation [default: 30, the library's call timeout].
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub timeout: Option<Duration>,

    /// Print the whole result as JSON (content, structuredContent, isError).
    #[arg(long)]
    pub json: bool,

    /// Hub mode: route the call through the servers of this config file.
    #[arg(long, value_name = "FILE", conflicts_with_all = SINGLE_SERVER_CONNECTION_ARGS)]
    pub config: Option<PathBuf>,

    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// `toolbridge servers`.
#[derive(Debug, Args)]
pub struct ServersArgs {
    /// The config file [default: ./toolbridge.toml, else the user config
    /// directory's toolbridge/toolbridge.toml].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Give every server this long to start and finish its handshake,
    /// instead of its configured startup timeout.
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub startup_timeout: Option<Duration>,
}

/// `toolbridge config …`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Load and validate a config file, and print its servers as resolved
    /// (placeholders filled in, secret values masked).
    #[command(after_help = EXAMPLES_CONFIG_CHECK)]
    Check(ConfigCheckArgs),
}

const EXAMPLES_CONFIG_CHECK: &str = "Examples:
  toolbridge config check toolbridge.toml
  toolbridge config check ~/.config/Claude/claude_desktop_config.json

Exit code 0 when the file is valid, 2 with the problem (file, line,
server, variable) when not.";

/// `toolbridge config check`.
#[derive(Debug, Args)]
pub struct ConfigCheckArgs {
    /// The config file [default: ./toolbridge.toml, else the user config
    /// directory's toolbridge/toolbridge.toml].
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// `toolbridge audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The config file naming the audit log [default: ./toolbridge.toml,
    /// else the user config directory's; the default SQLite database when
    /// there is none].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Only events about this server.
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,

    /// Only calls of this tool (its name on the server, not the exposed
    /// name).
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,

    /// Only events this recent: a whole number and a unit, e.g. 45s, 30m,
    /// 1h, 2d, 1w.
    #[arg(long, value_name = "AGE", value_parser = parse_since)]
    pub since: Option<Duration>,

    /// At most this many events (the newest).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,

    /// Print the events as JSON lines, one object per event.
    #[arg(long)]
    pub json: bool,
}

/// How to reach the server: flags shared by every subcommand.
#[derive(Debug, Args)]
#[command(next_help_heading = "Server")]
pub struct ServerArgs {
    /// A Streamable HTTP endpoint, e.g. http://127.0.0.1:3001/mcp.
    #[arg(long, value_name = "URL", conflicts_with_all = ["command", "env", "cwd"])]
    pub url: Option<String>,

    /// An HTTP header for every request, as 'Name: value'; repeatable
    /// (with --url).
    // `conflicts_with` as well as `requires`: clap does not enforce
    // `requires` when the trailing `-- COMMAND` is present.
    #[arg(
        short = 'H',
        long = "header",
        value_name = "HEADER",
        requires = "url",
        conflicts_with = "command",
        value_parser = parse_header
    )]
    pub headers: Vec<(String, String)>,

    /// Set a variable for the server process, as K=V; repeatable. The
    /// server otherwise sees only PATH, HOME, locale and similar variables,
    /// never the parent's secrets.
    #[arg(long = "env", value_name = "K=V", value_parser = parse_env)]
    pub env: Vec<(String, String)>,

    /// The server process's working directory.
    #[arg(long, value_name = "DIR", value_parser = parse_dir)]
    pub cwd: Option<PathBuf>,

    /// How long the server may take to start and finish its handshake
    /// (a cold `npx -y` downloads packages first) [default: 60; in hub
    /// mode, each server's configured timeout].
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub startup_timeout: Option<Duration>,

    /// The server's name in messages and logs [default: the command's file
    /// name, or the URL's host].
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub name: Option<String>,

    /// The server's command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Where the server is and how it is started: exactly one transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP on stdio.
    Stdio(McpServerStdioParams),
    /// A Streamable HTTP endpoint.
    Http(McpServerStreamableHttpParams),
}

/// The validated server configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The transport.
    pub transport: Transport,
    /// The name, when given (the library derives one otherwise).
    pub name: Option<String>,
    /// The startup timeout.
    pub startup_timeout: Duration,
}

/// The startup timeout of a single server when `--startup-timeout` is not
/// given.
const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

impl ServerArgs {
    /// Whether flags that only make sense for one server (`-H`, `--env`,
    /// `--cwd`, `--name`) were given.
    fn has_single_only_flags(&self) -> bool {
        !self.headers.is_empty()
            || !self.env.is_empty()
            || self.cwd.is_some()
            || self.name.is_some()
    }

    /// Turns the flags into a [`ServerConfig`].
    ///
    /// # Errors
    /// A clap usage error when neither `-- COMMAND` nor `--url` is given
    /// (clap itself rejects both at once).
    pub fn to_config(&self) -> Result<ServerConfig, clap::Error> {
        let transport = match (&self.url, self.command.split_first()) {
            (Some(url), _) => Transport::Http(McpServerStreamableHttpParams {
                url: url.clone(),
                headers: self.headers.iter().cloned().collect(),
            }),
            (None, Some((command, args))) => Transport::Stdio(McpServerStdioParams {
                command: command.clone(),
                args: args.to_vec(),
                env: self.env.iter().cloned().collect::<BTreeMap<_, _>>(),
                cwd: self.cwd.clone(),
                ..McpServerStdioParams::default()
            }),
            (None, None) => {
                return Err(Cli::command().error(
                    ErrorKind::MissingRequiredArgument,
                    "no server given: pass `-- COMMAND [ARGS...]` for a stdio server \
                     or `--url URL` for a Streamable HTTP server",
                ));
            }
        };
        Ok(ServerConfig {
            transport,
            name: self.name.clone(),
            startup_timeout: self.startup_timeout.unwrap_or(DEFAULT_STARTUP_TIMEOUT),
        })
    }
}

/// Parses `--args`: JSON that must be an object, given inline, as `@FILE`
/// or as `-` (standard input).
fn parse_json_object(text: &str) -> Result<Map<String, Value>, String> {
    let owned;
    let text = if text == "-" {
        let mut input = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut input).map_err(|error| {
            format!("could not read the arguments from standard input: {error}")
        })?;
        owned = input;
        owned.as_str()
    } else if let Some(path) = text.strip_prefix('@') {
        owned = std::fs::read_to_string(path)
            .map_err(|error| format!("could not read the arguments from {path:?}: {error}"))?;
        owned.as_str()
    } else {
        text
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "the tool arguments must be a JSON object like '{{\"key\": \"value\"}}', not {}",
            json_kind(&other)
        )),
        Err(error) => Err(format!("not valid JSON: {error}")),
    }
}

/// "an array", "a string"…: what a JSON value is, for messages.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parses a positive, finite number of seconds (fractions allowed).
fn parse_secs(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of seconds, e.g. 30 or 0.5, not {text:?}"))?;
    if secs.is_nan() || secs <= 0.0 {
        return Err("the number of seconds must be greater than 0".to_owned());
    }
    Duration::try_from_secs_f64(secs).map_err(|_| format!("{text} seconds is too long"))
}

/// Parses `--since`: a whole number and a unit (`1h`).
fn parse_since(text: &str) -> Result<Duration, String> {
    toolbridge::audit::parse_since(text).map_err(|error| error.to_string())
}

/// Parses `-H 'Name: value'`.
fn parse_header(text: &str) -> Result<(String, String), String> {
    let Some((name, value)) = text.split_once(':') else {
        return Err(
            "expected 'Name: value' (a colon between the header name and its value)".to_owned(),
        );
    };
    let name = name.trim();
    if name.is_empty() {
        return Err("the header name before ':' is empty".to_owned());
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// Parses `--env K=V`.
fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        Some(_) => Err("the variable name before '=' is empty".to_owned()),
        None => Err("expected K=V (a variable name, '=', and its value)".to_owned()),
    }
}

/// Parses `--cwd`: an existing directory.
fn parse_dir(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    if path.is_dir() {
        Ok(path)
    } else {
        Err("no such directory".to_owned())
    }
}

/// Parses `--prefix`: it must make valid tool names.
fn parse_prefix(text: &str) -> Result<String, String> {
    toolbridge::validate_tool_name(text)
        .map(|()| text.to_owned())
        .map_err(|error| format!("not usable in a tool name: {error}"))
}

/// Parses `--name`: anything but blank.
fn parse_name(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("the name is empty".to_owned())
    } else {
        Ok(text.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("toolbridge").chain(args.iter().copied()))
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn args_must_be_a_json_object() {
        assert!(parse_json_object(r#"{"a": 1}"#).is_ok());
        assert!(
            parse_json_object("[1]")
                .unwrap_err()
                .contains("not an array")
        );
        assert!(
            parse_json_object("{")
                .unwrap_err()
                .contains("not valid JSON")
        );
    }

    #[test]
    fn seconds_must_be_positive_and_finite() {
        assert_eq!(parse_secs("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_secs("0").is_err());
        assert!(parse_secs("-1").is_err());
        assert!(parse_secs("NaN").is_err());
        assert!(parse_secs("inf").is_err());
        assert!(parse_secs("soon").is_err());
    }

    #[test]
    fn header_splits_at_the_first_colon() {
        assert_eq!(
            parse_header("Authorization: Bearer a:b"),
            Ok(("Authorization".to_owned(), "Bearer a:b".to_owned()))
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header(": v").is_err());
    }

    #[test]
    fn env_splits_at_the_first_equals() {
        assert_eq!(parse_env("A=b=c"), Ok(("A".to_owned(), "b=c".to_owned())));
        assert_eq!(parse_env("A="), Ok(("A".to_owned(), String::new())));
        assert!(parse_env("=x").is_err());
        assert!(parse_env("A").is_err());
    }

    #[test]
    fn command_after_double_dash_is_a_stdio_server() {
        let cli = parse(&["call", "echo", "--env", "K=V", "--", "srv", "--flag"]).unwrap();
        let config = cli.command.single_server().unwrap().unwrap();
        let Transport::Stdio(params) = config.transport else {
            panic!("expected stdio");
        };
        assert_eq!(params.command, "srv");
        assert_eq!(params.args, ["--flag"]);
        assert_eq!(params.env.get("K").map(String::as_str), Some("V"));
        assert_eq!(config.startup_timeout, DEFAULT_STARTUP_TIMEOUT);
    }

    #[test]
    fn url_with_headers_is_an_http_server() {
        let cli = parse(&["tools", "--url", "http://h/mcp", "-H", "X-A: 1"]).unwrap();
        let config = cli.command.single_server().unwrap().unwrap();
        let Transport::Http(params) = config.transport else {
            panic!("expected http");
        };
        assert_eq!(params.headers.get("X-A").map(String::as_str), Some("1"));
    }

    #[test]
    fn at_most_one_server_is_allowed() {
        assert!(parse(&["tools", "--url", "http://h/mcp", "--", "srv"]).is_err());
        assert!(parse(&["tools", "-H", "A: b", "--", "srv"]).is_err());
        assert!(parse(&["tools", "--url", "http://h/mcp", "--env", "A=b"]).is_err());
    }

    #[test]
    fn no_server_at_all_is_hub_mode() {
        let none = parse(&["tools"]).unwrap();
        let Command::Tools(args) = &none.command else {
            panic!("expected tools");
        };
        assert!(args.server.to_config().is_err());
        assert_eq!(none.command.single_server().unwrap(), None);
        let call = parse(&["call", "mcp_a_echo", "--timeout", "2"]).unwrap();
        assert_eq!(call.command.single_server().unwrap(), None);
        let filtered = parse(&["tools", "--server", "a"]).unwrap();
        assert_eq!(filtered.command.single_server().unwrap(), None);
    }

    #[test]
    fn single_server_flags_without_a_server_are_a_usage_error() {
        for args in [
            &["tools", "--prefix", "p"][..],
            &["tools", "--allow", "echo"],
            &["call", "echo", "--env", "A=b"],
            &["tools", "--name", "n"],
        ] {
            let cli = parse(args).unwrap();
            assert!(cli.command.single_server().is_err(), "{args:?}");
        }
    }

    #[test]
    fn config_conflicts_with_a_single_server() {
        assert!(parse(&["tools", "--config", "f.toml", "--", "srv"]).is_err());
        assert!(parse(&["tools", "--config", "f.toml", "--url", "http://h/mcp"]).is_err());
        assert!(parse(&["tools", "--config", "f.toml", "--prefix", "p"]).is_err());
        assert!(parse(&["tools", "--server", "a", "--", "srv"]).is_err());
        assert!(parse(&["call", "t", "--config", "f.toml", "--env", "A=b"]).is_err());
        let ok = parse(&["call", "t", "--config", "f.toml", "--startup-timeout", "5"]).unwrap();
        assert_eq!(ok.command.single_server().unwrap(), None);
    }

    #[test]
    fn config_check_and_audit_parse() {
        assert!(parse(&["config", "check", "f.toml"]).is_ok());
        assert!(parse(&["config", "check"]).is_ok());
        let audit = parse(&["audit", "--since", "1h", "--json"]).unwrap();
        let Command::Audit(args) = audit.command else {
            panic!("expected audit");
        };
        assert_eq!(args.since, Some(Duration::from_secs(3600)));
        assert!(parse(&["audit", "--since", "1 hour"]).is_err());
    }
}
