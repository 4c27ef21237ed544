//! [`CommandPolicy`]: which stdio servers a *remote* caller may start.
//!
//! Issue "Command policy and secrets": a server added through the hub's
//! programmatic or HTTP interface must use an allowlisted launcher and may
//! not carry shell metacharacters or control characters; a server the local
//! user typed on the CLI or listed in their own config file is trusted
//! ([`Trust`]).
//!
//! No shell is ever involved (command and args are argv), so the character
//! rules are defence in depth: a hub reachable over HTTP refuses what a
//! downstream wrapper script might hand to a shell.
//!
//! The policy is a gate, not a sandbox: an allowlisted launcher runs what
//! its arguments say (`npx any-package`, `python -c …`, `docker run …`), so
//! an interface that accepts [`Trust::Remote`] servers still needs
//! authentication. To pin exactly which programs may run, narrow the list
//! to absolute paths.

use std::{collections::BTreeSet, fmt, path::Path};

use crate::{config::is_secret_name, mcp::McpServerStdioParams};

/// The launchers allowed by [`CommandPolicy::default`], matched as bare
/// names (looked up on `PATH`).
pub const DEFAULT_LAUNCHERS: [&str; 9] = [
    "npx", "node", "python", "python3", "uv", "uvx", "bun", "deno", "docker",
];

/// Environment variables a remote caller may not set: they choose which
/// program a bare launcher name resolves to (`PATH`: the child's `PATH` is
/// the one used for the lookup), or load code into it.
const LOADER_ENV: [&str; 4] = ["PATH", "NODE_OPTIONS", "PYTHONPATH", "PYTHONHOME"];

/// Prefixes of dynamic-loader variables (`LD_PRELOAD`, `DYLD_INSERT_LIBRARIES`, …).
const LOADER_ENV_PREFIXES: [&str; 2] = ["LD_", "DYLD_"];

/// Who asked for a server, and so whether [`CommandPolicy`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trust {
    /// Typed by the local user on the CLI, or listed in their own config
    /// file: trusted, the policy is not applied.
    Local,
    /// Added through the hub's programmatic or HTTP interface: the policy
    /// is applied.
    Remote,
}

/// The rules a [`Trust::Remote`] stdio server must pass before anything is
/// spawned:
///
/// 1. **Allowlisted command.** A bare name (no `/`) must equal an
///    allowlisted name exactly (`npx`, not `NPX` or `npx.cmd`). A path must
///    be absolute and equal an allowlisted entry byte for byte: no
///    canonicalisation, so `/usr/bin/npx` is allowed only if it is listed,
///    even though `npx` is, and `/opt/x/../y` matches only itself. Relative
///    paths (`./server`, `bin/server`) are always refused: they resolve
///    against a caller-chosen `cwd`.
/// 2. **No shell syntax.** The command and every argument are free of `;`
///    `|` `&` `` ` `` `>` `<`, of `$(` and `${`, and of control characters
///    (newline, carriage return, NUL, tab, DEL, C1 controls).
/// 3. **No loader or lookup overrides.** `env` does not set `PATH`,
///    `NODE_OPTIONS`, `PYTHONPATH`, `PYTHONHOME`, `LD_*` or `DYLD_*`.
/// 4. **No hub secrets.** `inherit_all_env` is off, and `inherit_env` names
///    no secret-looking variable ([`is_secret_name`]): those would hand the
///    hub's own credentials to a caller-chosen program.
///
/// Errors name the server and the argument index and character, never the
/// argument's value (it may be a secret).
///
/// # Examples
/// ```
/// use toolbridge::mcp::McpServerStdioParams;
/// use toolbridge::policy::{CommandPolicy, Trust};
///
/// let policy = CommandPolicy::default().widen(["/opt/mcp/bin/server"]);
/// let ok = McpServerStdioParams {
///     command: "npx".into(),
///     args: vec!["-y".into(), "@modelcontextprotocol/server-memory".into()],
///     ..Default::default()
/// };
/// policy.check("memory", &ok)?;
///
/// let bad = McpServerStdioParams { command: "sh".into(), ..Default::default() };
/// assert!(policy.check_for(Trust::Remote, "evil", &bad).is_err());
/// assert!(policy.check_for(Trust::Local, "mine", &bad).is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPolicy {
    allowlist: BTreeSet<String>,
}

impl Default for CommandPolicy {
    /// The [`DEFAULT_LAUNCHERS`], no paths.
    fn default() -> Self {
        Self::with_allowlist(DEFAULT_LAUNCHERS)
    }
}

impl CommandPolicy {
    /// A policy allowing exactly `entries` (launcher names and absolute
    /// paths), replacing the defaults. Empty entries are ignored; an empty
    /// list allows nothing. A relative-path entry never matches (rule 1).
    pub fn with_allowlist<I, S>(entries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            allowlist: entries
                .into_iter()
                .map(Into::into)
                .filter(|e| !e.is_empty())
                .collect(),
        }
    }

    /// The policy for a config's `command_allowlist`
    /// ([`HubConfig::command_allowlist`](crate::config::HubConfig::command_allowlist)):
    /// `None` (the key is absent) gives [`CommandPolicy::default`];
    /// `Some(list)` allows *exactly* that list, replacing the defaults, so
    /// `command_allowlist = []` refuses every remote stdio server. To keep
    /// the defaults and add a path, list them too:
    /// `["npx", "uvx", "/opt/mcp/bin/server"]`.
    pub fn from_config(command_allowlist: Option<&[String]>) -> Self {
        match command_allowlist {
            None => Self::default(),
            Some(list) => Self::with_allowlist(list.iter().cloned()),
        }
    }

    /// This policy with `extra` names or paths allowed as well.
    #[must_use]
    pub fn widen<I, S>(mut self, extra: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowlist.extend(
            extra
                .into_iter()
                .map(Into::into)
                .filter(|e: &String| !e.is_empty()),
        );
        self
    }

    /// This policy with only the entries that are also in `keep`; entries
    /// of `keep` that were not allowed stay disallowed.
    #[must_use]
    pub fn narrow<I, S>(mut self, keep: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let keep: BTreeSet<String> = keep.into_iter().map(Into::into).collect();
        self.allowlist.retain(|e| keep.contains(e));
        self
    }

    /// The allowed names and paths, sorted.
    pub fn allowlist(&self) -> impl Iterator<Item = &str> {
        self.allowlist.iter().map(String::as_str)
    }

    /// Whether `command` passes rule 1 (allowlist only; characters are not
    /// checked here).
    pub fn allows(&self, command: &str) -> bool {
        (!is_path(command) || Path::new(command).is_absolute()) && self.allowlist.contains(command)
    }

    /// Applies the policy when `trust` is [`Trust::Remote`]; accepts
    /// anything for [`Trust::Local`].
    ///
    /// # Errors
    /// As [`CommandPolicy::check`], for remote servers only.
    pub fn check_for(
        &self,
        trust: Trust,
        server: &str,
        params: &McpServerStdioParams,
    ) -> Result<(), PolicyError> {
        match trust {
            Trust::Local => Ok(()),
            Trust::Remote => self.check(server, params),
        }
    }

    /// Checks the stdio server `server` started with `params` against the
    /// rules (see [`CommandPolicy`]), in this order: characters of the
    /// command, of each argument, the allowlist, then the environment. The
    /// first violation is returned.
    ///
    /// # Errors
    /// - [`PolicyError::EmptyCommand`]: the command is empty.
    /// - [`PolicyError::ForbiddenCharacter`]: the command or an argument
    ///   contains shell syntax or a control character.
    /// - [`PolicyError::RelativePath`]: the command is a relative path.
    /// - [`PolicyError::CommandNotAllowed`]: the command is not allowlisted.
    /// - [`PolicyError::EnvNotAllowed`]: `env` sets a lookup or loader
    ///   variable.
    /// - [`PolicyError::InheritNotAllowed`]: `inherit_all_env` is set, or
    ///   `inherit_env` names a secret-looking variable.
    pub fn check(&self, server: &str, params: &McpServerStdioParams) -> Result<(), PolicyError> {
        let command = params.command.as_str();
        if command.is_empty() {
            return Err(PolicyError::EmptyCommand {
                server: server.to_owned(),
            });
        }
        check_text(server, Place::Command, command)?;
        for (index, arg) in params.args.iter().enumerate() {
            check_text(server, Place::Arg(index), arg)?;
        }
        if is_path(command) && !Path::new(command).is_absolute() {
            return Err(PolicyError::RelativePath {
                server: server.to_owned(),
                command: command.to_owned(),
            });
        }
        if !self.allows(command) {
            return Err(PolicyError::CommandNotAllowed {
                server: server.to_owned(),
                command: command.to_owned(),
                allowed: self.describe_allowlist(),
            });
        }
        if let Some(name) = params.env.keys().find(|n| is_loader_env(n)) {
            return Err(PolicyError::EnvNotAllowed {
                server: server.to_owned(),
                name: name.clone(),
            });
        }
        if params.inherit_all_env {
            return Err(PolicyError::InheritNotAllowed {
                server: server.to_owned(),
                what: "the whole environment (inherit_all_env)".to_owned(),
            });
        }
        if let Some(name) = params.inherit_env.iter().find(|n| is_secret_name(n)) {
            return Err(PolicyError::InheritNotAllowed {
                server: server.to_owned(),
                what: format!("the secret-looking variable '{name}'"),
            });
        }
        Ok(())
    }

    fn describe_allowlist(&self) -> String {
        if self.allowlist.is_empty() {
            "none".to_owned()
        } else {
            self.allowlist
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        }
    }
}

/// Where a forbidden character was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// The command.
    Command,
    /// The argument at this 0-based index of `args`.
    Arg(usize),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Command => f.write_str("the command"),
            Self::Arg(i) => write!(f, "argument {i}"),
        }
    }
}

/// What was forbidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Forbidden {
    /// A shell metacharacter: `;` `|` `&` `` ` `` `>` `<`.
    Metacharacter(char),
    /// A shell expansion opener: `$(` or `${`.
    Substitution(&'static str),
    /// A control character (newline, carriage return, NUL, tab, DEL, …).
    Control(char),
}

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Metacharacter(c) => write!(f, "the shell metacharacter '{c}'"),
            Self::Substitution(s) => write!(f, "the shell substitution '{s}'"),
            Self::Control(c) => write!(f, "the control character {c:?} (U+{:04X})", u32::from(*c)),
        }
    }
}

/// Why [`CommandPolicy`] refused a server. Every variant names the server;
/// messages say what to change and never contain an argument's value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The command is empty.
    #[error("server '{server}': the command is empty; give a launcher such as npx or uvx")]
    EmptyCommand {
        /// The server.
        server: String,
    },

    /// The command or an argument contains shell syntax or a control
    /// character.
    #[error(
        "server '{server}': {place} contains {found} at character {position}; shell \
         metacharacters and control characters are refused for servers added remotely \
         (remove it, or list the server in your own config file)"
    )]
    ForbiddenCharacter {
        /// The server.
        server: String,
        /// The command or which argument.
        place: Place,
        /// 0-based character (not byte) offset within it.
        position: usize,
        /// What was found.
        found: Forbidden,
    },

    /// The command is a relative path.
    #[error(
        "server '{server}': command '{command}' is a relative path, which is refused for \
         servers added remotely; use an allowlisted launcher name or an absolute path \
         listed in command_allowlist in the config"
    )]
    RelativePath {
        /// The server.
        server: String,
        /// The command.
        command: String,
    },

    /// The command is neither an allowlisted name nor an allowlisted path.
    #[error(
        "server '{server}': command '{command}' is not allowed (allowed: {allowed}); add \
         the command to command_allowlist in the config"
    )]
    CommandNotAllowed {
        /// The server.
        server: String,
        /// The command.
        command: String,
        /// The allowlist, comma-separated (`none` when empty).
        allowed: String,
    },

    /// `env` sets a variable that picks the program or loads code into it.
    #[error(
        "server '{server}': env may not set '{name}' for servers added remotely (it changes \
         which program runs or what it loads); remove it, or list the server in your own \
         config file"
    )]
    EnvNotAllowed {
        /// The server.
        server: String,
        /// The variable.
        name: String,
    },

    /// The server asks for the hub's whole environment or a secret from it.
    #[error(
        "server '{server}': servers added remotely may not inherit {what} from the hub; \
         pass the value in env instead, or list the server in your own config file"
    )]
    InheritNotAllowed {
        /// The server.
        server: String,
        /// What was asked for.
        what: String,
    },
}

/// Whether `command` is a path rather than a name to look up on `PATH`.
fn is_path(command: &str) -> bool {
    command.contains('/') || command.contains(std::path::MAIN_SEPARATOR)
}

fn is_loader_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    LOADER_ENV.contains(&upper.as_str()) || LOADER_ENV_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// The first forbidden character of `text`, with its character offset.
fn find_forbidden(text: &str) -> Option<(usize, Forbidden)> {
    let mut chars = text.chars().enumerate().peekable();
    while let Some((position, c)) = chars.next() {
        let found = match c {
            ';' | '|' | '&' | '`' | '>' | '<' => Forbidden::Metacharacter(c),
            '$' => match chars.peek() {
                Some((_, '(')) => Forbidden::Substitution("$("),
                Some((_, '{')) => Forbidden::Substitution("${"),
                _ => continue,
            },
            c if c.is_control() => Forbidden::Control(c),
            _ => continue,
        };
        return Some((position, found));
    }
    None
}

fn check_text(server: &str, place: Place, text: &str) -> Result<(), PolicyError> {
    match find_forbidden(text) {
        None => Ok(()),
        Some((position, found)) => Err(PolicyError::ForbiddenCharacter {
            server: server.to_owned(),
            place,
            position,
            found,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(command: &str, args: &[&str]) -> McpServerStdioParams {
        McpServerStdioParams {
            command: command.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            ..McpServerStdioParams::default()
        }
    }

    fn remote(policy: &CommandPolicy, p: &McpServerStdioParams) -> Result<(), PolicyError> {
        policy.check_for(Trust::Remote, "srv", p)
    }

    fn forbidden_in_arg(arg: &str) -> (Place, usize, Forbidden) {
        let p = params("npx", &["-y", arg]);
        match CommandPolicy::default().check("srv", &p) {
            Err(PolicyError::ForbiddenCharacter {
                server,
                place,
                position,
                found,
            }) => {
                assert_eq!(server, "srv");
                (place, position, found)
            }
            other => panic!("{arg:?}: expected ForbiddenCharacter, got {other:?}"),
        }
    }

    #[test]
    fn default_launchers_with_plain_args_pass() {
        let policy = CommandPolicy::default();
        for launcher in DEFAULT_LAUNCHERS {
            let p = params(
                launcher,
                &[
                    "-y",
                    "@scope/pkg@1.2.3",
                    "--port=8080",
                    "/tmp/data",
                    "$HOME",
                ],
            );
            assert_eq!(remote(&policy, &p), Ok(()), "{launcher}");
        }
        assert_eq!(
            policy.allowlist().collect::<Vec<_>>(),
            [
                "bun", "deno", "docker", "node", "npx", "python", "python3", "uv", "uvx"
            ]
        );
    }

    #[test]
    fn semicolon_is_rejected_with_index_and_position() {
        assert_eq!(
            forbidden_in_arg("pkg;rm -rf /"),
            (Place::Arg(1), 3, Forbidden::Metacharacter(';'))
        );
    }

    #[test]
    fn pipe_is_rejected() {
        assert_eq!(
            forbidden_in_arg("a|b"),
            (Place::Arg(1), 1, Forbidden::Metacharacter('|'))
        );
    }

    #[test]
    fn command_substitution_is_rejected() {
        assert_eq!(
            forbidden_in_arg("x$(id)"),
            (Place::Arg(1), 1, Forbidden::Substitution("$("))
        );
        assert_eq!(
            forbidden_in_arg("${HOME}"),
            (Place::Arg(1), 0, Forbidden::Substitution("${"))
        );
    }

    #[test]
    fn backtick_is_rejected() {
        assert_eq!(
            forbidden_in_arg("`id`"),
            (Place::Arg(1), 0, Forbidden::Metacharacter('`'))
        );
    }

    #[test]
    fn double_ampersand_is_rejected() {
        assert_eq!(
            forbidden_in_arg("pkg && curl x"),
            (Place::Arg(1), 4, Forbidden::Metacharacter('&'))
        );
    }

    #[test]
    fn redirections_are_rejected() {
        assert_eq!(
            forbidden_in_arg("out>/etc/passwd"),
            (Place::Arg(1), 3, Forbidden::Metacharacter('>'))
        );
        assert_eq!(
            forbidden_in_arg("<in"),
            (Place::Arg(1), 0, Forbidden::Metacharacter('<'))
        );
    }

    #[test]
    fn newline_carriage_return_nul_and_other_controls_are_rejected() {
        for (arg, c) in [
            ("a\nb", '\n'),
            ("a\rb", '\r'),
            ("a\0b", '\0'),
            ("a\tb", '\t'),
            ("a\u{1b}b", '\u{1b}'),
            ("a\u{7f}b", '\u{7f}'),
            ("a\u{85}b", '\u{85}'),
        ] {
            assert_eq!(
                forbidden_in_arg(arg),
                (Place::Arg(1), 1, Forbidden::Control(c)),
                "{arg:?}"
            );
        }
    }

    #[test]
    fn a_dollar_not_opening_an_expansion_is_allowed() {
        let p = params("npx", &["$HOME", "price$", "a$b"]);
        assert_eq!(CommandPolicy::default().check("srv", &p), Ok(()));
    }

    #[test]
    fn position_counts_characters_not_bytes() {
        assert_eq!(
            forbidden_in_arg("ключ;x"),
            (Place::Arg(1), 4, Forbidden::Metacharacter(';'))
        );
    }

    #[test]
    fn metacharacters_in_the_command_are_reported_before_the_allowlist() {
        let err = remote(&CommandPolicy::default(), &params("npx;sh", &[])).unwrap_err();
        assert!(
            matches!(
                err,
                PolicyError::ForbiddenCharacter {
                    place: Place::Command,
                    position: 3,
                    found: Forbidden::Metacharacter(';'),
                    ..
                }
            ),
            "{err:?}"
        );
        let msg = err.to_string();
        assert!(msg.contains("server 'srv'"), "{msg}");
        assert!(msg.contains("the command contains"), "{msg}");
    }

    #[test]
    fn forbidden_character_message_names_the_index_and_hides_the_value() {
        let secret = "ghp_0123456789abcdefSECRET";
        let p = params("npx", &["-y", "pkg", &format!("{secret}\n")]);
        let msg = CommandPolicy::default()
            .check("github", &p)
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "server 'github': argument 2 contains the control character '\\n' (U+000A) at \
             character 26; shell metacharacters and control characters are refused for \
             servers added remotely (remove it, or list the server in your own config file)"
        );
        assert!(!msg.contains(secret), "{msg}");
    }

    #[test]
    fn unknown_launcher_is_rejected_with_the_config_hint() {
        let err = remote(&CommandPolicy::default(), &params("bash", &["-c", "id"])).unwrap_err();
        assert!(
            matches!(&err, PolicyError::CommandNotAllowed { command, .. } if command == "bash"),
            "{err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.starts_with("server 'srv': command 'bash' is not allowed"),
            "{msg}"
        );
        assert!(
            msg.contains("allowed: bun, deno, docker, node, npx"),
            "{msg}"
        );
        assert!(
            msg.contains("add the command to command_allowlist in the config"),
            "{msg}"
        );
    }

    #[test]
    fn names_match_exactly() {
        let policy = CommandPolicy::default();
        for command in ["NPX", "npx.cmd", " npx", "npx ", "python3.12"] {
            assert!(!policy.allows(command), "{command:?}");
        }
        assert!(matches!(
            remote(&policy, &params("", &[])),
            Err(PolicyError::EmptyCommand { .. })
        ));
    }

    #[test]
    fn paths_match_only_listed_absolute_paths() {
        let policy = CommandPolicy::default().widen(["/opt/mcp/bin/server"]);
        assert_eq!(remote(&policy, &params("/opt/mcp/bin/server", &[])), Ok(()));
        // A path to an allowlisted launcher is still a path: not listed, refused.
        assert!(matches!(
            remote(&policy, &params("/usr/bin/npx", &[])),
            Err(PolicyError::CommandNotAllowed { .. })
        ));
        // No canonicalisation: other spellings of the listed path are refused.
        for command in ["/opt/mcp/bin/../bin/server", "/opt/mcp//bin/server"] {
            assert!(
                matches!(
                    remote(&policy, &params(command, &[])),
                    Err(PolicyError::CommandNotAllowed { .. })
                ),
                "{command}"
            );
        }
    }

    #[test]
    fn relative_paths_are_refused_even_when_listed() {
        let policy = CommandPolicy::with_allowlist(["./server", "bin/server"]);
        for command in ["./server", "bin/server"] {
            let err = remote(&policy, &params(command, &[])).unwrap_err();
            assert!(matches!(err, PolicyError::RelativePath { .. }), "{err:?}");
            assert!(err.to_string().contains("absolute path"), "{err}");
            assert!(!policy.allows(command));
        }
    }

    #[test]
    fn with_allowlist_replaces_the_defaults() {
        let policy = CommandPolicy::with_allowlist(["uvx", "", "/srv/tool"]);
        assert_eq!(policy.allowlist().collect::<Vec<_>>(), ["/srv/tool", "uvx"]);
        assert!(policy.allows("uvx"));
        assert!(!policy.allows("npx"));
    }

    #[test]
    fn widen_adds_and_keeps_the_defaults() {
        let policy = CommandPolicy::default().widen(["my-launcher", "/srv/tool"]);
        for command in ["npx", "docker", "my-launcher", "/srv/tool"] {
            assert!(policy.allows(command), "{command}");
        }
    }

    #[test]
    fn narrow_keeps_only_the_intersection() {
        let policy = CommandPolicy::default().narrow(["npx", "uvx", "bash"]);
        assert_eq!(policy.allowlist().collect::<Vec<_>>(), ["npx", "uvx"]);
        assert!(!policy.allows("docker"));
        assert!(!policy.allows("bash"), "narrow never adds");
        let err = remote(&policy, &params("docker", &[])).unwrap_err();
        assert!(err.to_string().contains("(allowed: npx, uvx)"), "{err}");
    }

    #[test]
    fn an_empty_allowlist_refuses_everything() {
        let policy = CommandPolicy::with_allowlist(Vec::<String>::new());
        let err = remote(&policy, &params("npx", &[])).unwrap_err();
        assert!(err.to_string().contains("(allowed: none)"), "{err}");
    }

    #[test]
    fn from_config_none_is_the_default_and_some_is_exactly_the_list() {
        assert_eq!(CommandPolicy::from_config(None), CommandPolicy::default());
        let list = vec!["uvx".to_owned(), "/opt/mcp/bin/server".to_owned()];
        let policy = CommandPolicy::from_config(Some(&list));
        assert_eq!(
            policy.allowlist().collect::<Vec<_>>(),
            ["/opt/mcp/bin/server", "uvx"]
        );
        assert!(!policy.allows("npx"), "Some(list) replaces the defaults");
        assert_eq!(
            CommandPolicy::from_config(Some(&[])),
            CommandPolicy::with_allowlist(Vec::<String>::new())
        );
    }

    #[test]
    fn local_trust_bypasses_the_policy() {
        let policy = CommandPolicy::with_allowlist(Vec::<String>::new());
        let mut p = params("./my server", &["a; b", "$(id)", "x\ny"]);
        p.inherit_all_env = true;
        p.env.insert("PATH".into(), "/tmp".into());
        assert_eq!(policy.check_for(Trust::Local, "mine", &p), Ok(()));
        assert!(policy.check_for(Trust::Remote, "mine", &p).is_err());
    }

    #[test]
    fn remote_env_may_not_override_lookup_or_loader_variables() {
        let policy = CommandPolicy::default();
        for name in [
            "PATH",
            "LD_PRELOAD",
            "DYLD_INSERT_LIBRARIES",
            "NODE_OPTIONS",
            "path",
        ] {
            let mut p = params("node", &["server.js"]);
            p.env.insert(name.into(), "x".into());
            let err = remote(&policy, &p).unwrap_err();
            assert!(
                matches!(&err, PolicyError::EnvNotAllowed { name: n, .. } if n == name),
                "{name}: {err:?}"
            );
        }
        let mut p = params("node", &["server.js"]);
        p.env.insert("GITHUB_TOKEN".into(), "ghp_x;y|z".into());
        p.env.insert("LOG_LEVEL".into(), "debug".into());
        assert_eq!(remote(&policy, &p), Ok(()), "env values are not argv");
    }

    #[test]
    fn remote_servers_may_not_inherit_hub_secrets() {
        let policy = CommandPolicy::default();
        let mut p = params("npx", &["pkg"]);
        p.inherit_all_env = true;
        let err = remote(&policy, &p).unwrap_err();
        assert!(err.to_string().contains("inherit_all_env"), "{err}");

        let mut p = params("npx", &["pkg"]);
        p.inherit_env = vec!["HTTPS_PROXY".into(), "OPENAI_API_KEY".into()];
        let err = remote(&policy, &p).unwrap_err();
        assert!(err.to_string().contains("'OPENAI_API_KEY'"), "{err}");

        p.inherit_env = vec!["HTTPS_PROXY".into()];
        assert_eq!(remote(&policy, &p), Ok(()));
    }
}
