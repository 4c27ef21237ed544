//! [`ConfigError`]: why a config file could not be loaded.

use std::path::PathBuf;

/// Why a config file could not be loaded. Every variant names the file;
/// those about one server name it too. Messages say what to change, and
/// never contain a resolved variable or secret value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// The file is not valid JSON / TOML, or a value has the wrong shape.
    /// Quoted values in the parser's message are elided (they may be
    /// secrets).
    #[error("{}:{line}:{column}: invalid {format}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// `"JSON"` or `"TOML"`.
        format: &'static str,
        /// 1-based line, 0 when the parser gave no position.
        line: usize,
        /// 1-based column (characters), 0 when unknown.
        column: usize,
        /// The parser's message.
        message: String,
    },

    /// The format could not be told from the name or the content.
    #[error(
        "{}: cannot tell the config format; expected a `.toml` file, or a JSON object with \
         either `mcpServers` (Claude Desktop, Claude Code, Cursor) or `servers` (VS Code)",
        path.display()
    )]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },

    /// Two servers have the same name.
    #[error("{}: server '{server}' is defined twice; rename one of them", path.display())]
    DuplicateServer {
        /// The file.
        path: PathBuf,
        /// The repeated name.
        server: String,
    },

    /// A server's `type` / `transport` is not one toolbridge knows.
    #[error(
        "{}: server '{server}' has unknown transport type '{kind}'; use stdio, http \
         (also spelled streamable-http) or sse",
        path.display()
    )]
    UnknownTransport {
        /// The file.
        path: PathBuf,
        /// The server.
        server: String,
        /// The type as written.
        kind: String,
    },

    /// A server has neither a command nor a URL (or lacks the one its
    /// transport needs).
    #[error("{}: server '{server}' has no {needed}; {hint}", path.display())]
    MissingEndpoint {
        /// The file.
        path: PathBuf,
        /// The server.
        server: String,
        /// What is missing: `command`, `url`, or `command or url`.
        needed: &'static str,
        /// What to write instead.
        hint: &'static str,
    },

    /// A `${VAR}` placeholder names a variable that is not set and has no
    /// default.
    #[error(
        "{}: server '{server}': {field} uses ${{{variable}}}, which is not set; set it or give \
         a default with ${{{variable}:-…}}",
        path.display()
    )]
    MissingVariable {
        /// The file.
        path: PathBuf,
        /// The server.
        server: String,
        /// Where: `command`, `args[2]`, `env GITHUB_TOKEN`, `cwd`, `url`,
        /// `header Authorization`.
        field: String,
        /// The variable.
        variable: String,
    },

    /// A VS Code `${input:ID}` placeholder whose environment variable is not
    /// set (toolbridge does not prompt).
    #[error(
        "{}: server '{server}': {field} uses ${{input:{input}}}, which is not set; set the \
         environment variable {env_var}",
        path.display()
    )]
    MissingInput {
        /// The file.
        path: PathBuf,
        /// The server.
        server: String,
        /// Where, as in [`ConfigError::MissingVariable`].
        field: String,
        /// The input id.
        input: String,
        /// The variable it is read from (see
        /// [`input_env_var`](super::input_env_var)).
        env_var: String,
    },

    /// A malformed placeholder: `${` without `}`, or an invalid name.
    #[error("{}: server '{server}': {field}: {message}", path.display())]
    BadPlaceholder {
        /// The file.
        path: PathBuf,
        /// The server.
        server: String,
        /// Where, as in [`ConfigError::MissingVariable`].
        field: String,
        /// What is wrong and how to write it.
        message: String,
    },

    /// A server setting is out of range or contradicts another one.
    #[error("{}: server '{server}': {message}", path.display())]
    InvalidServer {
        /// The file.
        path: PathBuf,
        /// The server.
        server: String,
        /// What is wrong and how to fix it.
        message: String,
    },
}

/// A parser message with quoted values elided: serde writes
/// `invalid type: string "…", expected …`, and the string may be a secret.
pub(crate) fn redact_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut inside = false;
    for c in message.chars() {
        if c == '"' {
            if !inside {
                out.push_str("\"…\"");
            }
            inside = !inside;
        } else if !inside {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_quoted_elides_string_values() {
        assert_eq!(
            redact_quoted("invalid type: string \"ghp_secret\", expected a map"),
            "invalid type: string \"…\", expected a map"
        );
        assert_eq!(redact_quoted("missing field `url`"), "missing field `url`");
    }
}
