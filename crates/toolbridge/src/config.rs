//! Server configuration for the hub: the files users already have, loaded
//! into one validated [`HubConfig`].
//!
//! # Formats
//! [`HubConfig::load`] reads these files unchanged, and tells them apart by
//! extension and content ([`ConfigFormat::detect`]):
//!
//! - **`mcpServers` JSON** ([`ConfigFormat::McpServers`]): Claude Desktop's
//!   `claude_desktop_config.json`, Claude Code's and Cursor's `.mcp.json`.
//!   Each entry is `command` / `args` / `env` (stdio), or `type` (`http`,
//!   `streamable-http`, `sse`) + `url` + `headers`; `"disabled": true`
//!   turns an entry off. An entry with only a `url` is Streamable HTTP.
//! - **VS Code** ([`ConfigFormat::VsCode`]): `.vscode/mcp.json`, with
//!   `servers` (`type: stdio | http | sse`, `command` / `args` / `env` /
//!   `cwd` or `url` / `headers`) and `inputs`. Comments and trailing commas
//!   (JSONC) are accepted in every JSON format.
//! - **`toolbridge.toml`** ([`ConfigFormat::Toolbridge`]): everything the
//!   hub supports per server. Unknown keys are errors, so typos surface.
//!
//! ```toml
//! command_allowlist = ["npx", "uvx", "/opt/mcp/bin/server"]
//! audit = { sink = "jsonl", path = "/var/log/toolbridge/audit.jsonl" }
//!
//! [servers.github]
//! transport = "stdio"                 # or "http", "sse"; inferred when omitted
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-github"]
//! env = { GITHUB_PERSONAL_ACCESS_TOKEN = "${GITHUB_TOKEN}" }
//! inherit_env = ["HTTPS_PROXY"]       # parent variables passed through
//! cwd = "/srv/repos"
//! enabled = true
//! allow_tools = ["search_repositories", "get_file_contents"]
//! block_tools = ["delete_repository"]
//! prefix = "gh"
//! startup_timeout_secs = 120          # seconds, fractions allowed
//! call_timeout_secs = 30
//! max_concurrent_calls = 4
//! restart = { base_secs = 0.5, cap_secs = 30, max_attempts = 5 }
//!
//! [servers.search]
//! url = "https://search.example.com/mcp"
//! headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }
//! ```
//!
//! Servers keep the order of the file. Paths (`command`, `cwd`) are used
//! as written: a relative one is relative to the hub's working directory,
//! not to the file.
//!
//! # Placeholders
//! Command, args, env values, cwd, url and header values may use:
//!
//! - `${VAR}`: the variable `VAR`; a missing one is a
//!   [`ConfigError::MissingVariable`] naming the server, field and variable.
//!   `${env:VAR}` (VS Code's spelling) is the same.
//! - `${VAR:-default}`: `default` when `VAR` is unset *or empty* (as in
//!   POSIX `sh`). The default is literal text and cannot contain `}`.
//! - `${input:ID}` (VS Code `inputs`): toolbridge never prompts, so the
//!   value comes from the variable `TOOLBRIDGE_INPUT_<ID>`, the id upper-cased
//!   with every character other than `A-Z` / `0-9` turned into `_`
//!   ([`input_env_var`]): `github-token` → `TOOLBRIDGE_INPUT_GITHUB_TOKEN`.
//!   A missing one is a [`ConfigError::MissingInput`].
//! - `${workspaceFolder}` in a VS Code file: the folder holding `.vscode/`
//!   (or the file's own folder), unless the lookup defines it.
//! - `$${` is a literal `${`. Every other `$` is literal, so a password
//!   such as `pa$$word` reads unchanged.
//!
//! Variables come from a caller-supplied lookup
//! ([`HubConfig::load_with`]), or from the process environment
//! ([`HubConfig::load`]).
//!
//! # Secrets
//! [`mask`] holds the masking rules; [`ServerConfig::describe_masked`]
//! renders a server for `toolbridge config check`, and the `Debug` form of
//! [`TransportConfig`] masks env and header values too. Errors never carry
//! a resolved value.
//!
//! # Examples
//! ```no_run
//! use toolbridge::config::HubConfig;
//!
//! let config = HubConfig::load_with(".mcp.json", &|name| match name {
//!     "GITHUB_TOKEN" => Some("ghp_example".to_owned()),
//!     _ => std::env::var(name).ok(),
//! })?;
//! for server in config.enabled_servers() {
//!     println!("{}", server.describe_masked());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod expand;
mod json;
mod load;
pub mod mask;
mod model;
mod resolve;
mod toml_file;

pub use error::ConfigError;
pub use expand::input_env_var;
pub use load::{ConfigFormat, process_env};
pub use mask::{is_secret_name, mask_secret};
pub use model::{AuditConfig, HubConfig, RestartPolicy, ServerConfig, TransportConfig};
