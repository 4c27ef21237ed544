//! Secret masking: what counts as secret, and how it is shown.
//!
//! The rules (issue "Command policy and secrets"):
//! - every env value and header value declared in config is secret,
//!   whatever its name;
//! - so is any value whose name looks secret ([`is_secret_name`]), in
//!   `--name=value` / `--name value` / `Name: value` arguments and URL
//!   query parameters, and the password of a URL (`https://user:pw@host`);
//! - a secret is shown as [`mask_secret`] renders it: never whole.

use std::{collections::BTreeMap, fmt, fmt::Write as _};

use super::model::{ServerConfig, TransportConfig};

/// The mask shown in place of a secret.
const MASK: &str = "****";

/// Values longer than this many characters keep their last 4 visible.
const SHOW_TAIL_ABOVE: usize = 12;

/// Name fragments that mark a value as secret (matched case-insensitively
/// anywhere in the name).
const SECRET_FRAGMENTS: [&str; 8] = [
    "TOKEN",
    "KEY",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTHORIZATION",
    "COOKIE",
];

/// Whether a variable, header, flag or query parameter called `name` holds
/// a secret: its name contains, case-insensitively, `TOKEN`, `KEY`,
/// `SECRET`, `PASSWORD`, `PASSWD`, `CREDENTIAL`, `AUTHORIZATION` or
/// `COOKIE` (so `GITHUB_TOKEN`, `api-key`, `Authorization`,
/// `Proxy-Authorization`, `Set-Cookie`). Errs towards masking: `MONKEY`
/// counts too.
///
/// # Examples
/// ```
/// use toolbridge::config::is_secret_name;
/// assert!(is_secret_name("GITHUB_PERSONAL_ACCESS_TOKEN"));
/// assert!(is_secret_name("authorization"));
/// assert!(!is_secret_name("LOG_LEVEL"));
/// ```
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_FRAGMENTS.iter().any(|f| upper.contains(f))
}

/// A secret as it may be shown: `****` for values of up to 12 characters,
/// `****` plus the last 4 characters for longer ones (enough to tell two
/// tokens apart, too little to use one). Never the whole value; an empty
/// value is `****` too, so that emptiness is not revealed either.
///
/// # Examples
/// ```
/// use toolbridge::config::mask_secret;
/// assert_eq!(mask_secret("hunter2"), "****");
/// assert_eq!(mask_secret("ghp_0123456789abcdef"), "****cdef");
/// ```
pub fn mask_secret(value: &str) -> String {
    let count = value.chars().count();
    if count <= SHOW_TAIL_ABOVE {
        return MASK.to_owned();
    }
    let tail: String = value.chars().skip(count - 4).collect();
    format!("{MASK}{tail}")
}

/// `args` with secret-looking parts masked: the value of
/// `--token=…` / `TOKEN=…` / `Authorization: …` when the name is secret
/// ([`is_secret_name`]), the argument after a secret-named flag
/// (`--api-key VALUE`), and URLs as in [`mask_url`].
///
/// # Examples
/// ```
/// use toolbridge::config::mask::mask_args;
/// let args = ["--api-key", "sk-live-0123456789", "--header", "Authorization: Bearer abc", "--port=8080"];
/// let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
/// assert_eq!(
///     mask_args(&args),
///     ["--api-key", "****6789", "--header", "Authorization: ****", "--port=8080"]
/// );
/// ```
pub fn mask_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut mask_next = false;
    for arg in args {
        if std::mem::take(&mut mask_next) && !arg.starts_with('-') {
            out.push(mask_secret(arg));
            continue;
        }
        out.push(mask_arg(arg, &mut mask_next));
    }
    out
}

fn mask_arg(arg: &str, mask_next: &mut bool) -> String {
    if let Some((name, value)) = arg.split_once('=')
        && !name.contains(['/', ':', '?'])
    {
        return if is_secret_name(name) {
            format!("{name}={}", mask_secret(value))
        } else {
            format!("{name}={}", mask_url(value))
        };
    }
    if let Some((name, value)) = arg.split_once(':')
        && !name.is_empty()
        && !name.contains(char::is_whitespace)
        && is_secret_name(name)
    {
        return format!("{name}: {}", mask_secret(value.trim_start()));
    }
    if arg.starts_with('-') && is_secret_name(arg) {
        *mask_next = true;
    }
    mask_url(arg)
}

/// `url` with its password (`https://user:pw@host` → `user:****`), a bare
/// userinfo token (`https://TOKEN@host` → `****@host`) and secret-named
/// query parameters (`?api_key=…` → `api_key=****`) masked. Text that is
/// not a URL is returned unchanged.
///
/// # Examples
/// ```
/// use toolbridge::config::mask::mask_url;
/// assert_eq!(
///     mask_url("https://me:pw@example.com/mcp?access_token=abc&page=2"),
///     "https://me:****@example.com/mcp?access_token=****&page=2"
/// );
/// ```
pub fn mask_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_owned();
    };
    let (scheme, rest) = url.split_at(scheme_end + 3);
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, rest) = rest.split_at(authority_end);
    let mut out = String::from(scheme);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            match userinfo.split_once(':') {
                Some((user, _)) => {
                    let _ = write!(out, "{user}:{MASK}");
                }
                None => out.push_str(MASK),
            }
            out.push('@');
            out.push_str(host);
        }
        None => out.push_str(authority),
    }
    let (before_fragment, fragment) = match rest.find('#') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    match before_fragment.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            let params: Vec<String> = query
                .split('&')
                .map(|param| match param.split_once('=') {
                    Some((key, _)) if is_secret_name(key) => format!("{key}={MASK}"),
                    _ => param.to_owned(),
                })
                .collect();
            out.push_str(&params.join("&"));
        }
        None => out.push_str(before_fragment),
    }
    out.push_str(fragment);
    out
}

/// Every value of `map` masked with [`mask_secret`].
fn masked_values(map: &BTreeMap<String, String>) -> BTreeMap<&str, String> {
    map.iter()
        .map(|(k, v)| (k.as_str(), mask_secret(v)))
        .collect()
}

/// Declared env / header values at least this long are also masked where
/// they reappear (an arg or URL built from the same `${VAR}`); shorter ones
/// (`1`, `true`) would mask unrelated text.
const SCRUB_MIN_CHARS: usize = 8;

/// `text` with every occurrence of a declared secret masked.
fn scrub(text: &str, secrets: &[&String]) -> String {
    let mut text = text.to_owned();
    for secret in secrets {
        if secret.chars().count() >= SCRUB_MIN_CHARS {
            text = text.replace(secret.as_str(), &mask_secret(secret));
        }
    }
    text
}

impl ServerConfig {
    /// A multi-line, human-readable rendering for `toolbridge config
    /// check`: name, transport, command and args (or url), env and header
    /// names with masked values, inherited variables, cwd, whether it is
    /// enabled, tool filter, prefix, timeouts, restart policy and
    /// concurrency cap.
    ///
    /// No secret value appears: env and header values are masked
    /// ([`mask_secret`]); args and URL are masked as in [`mask_args`] and
    /// [`mask_url`], and any declared env or header value of 8 or more
    /// characters that reappears in the command, args, cwd or URL is masked
    /// there too.
    pub fn describe_masked(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail; the results are ignored.
        let _ = writeln!(out, "server '{}' ({})", self.name, self.transport.kind());
        match &self.transport {
            TransportConfig::Stdio(p) => {
                let secrets: Vec<&String> = p.env.values().collect();
                let _ = writeln!(out, "  command: {}", scrub(&p.command, &secrets));
                let args: Vec<String> = p.args.iter().map(|a| scrub(a, &secrets)).collect();
                let _ = writeln!(out, "  args: {:?}", mask_args(&args));
                write_map(&mut out, "env", &p.env, "=");
                if p.inherit_all_env {
                    let _ = writeln!(out, "  inherit env: all");
                } else if !p.inherit_env.is_empty() {
                    let _ = writeln!(out, "  inherit env: {}", p.inherit_env.join(", "));
                }
                if let Some(cwd) = &p.cwd {
                    let cwd = cwd.display().to_string();
                    let _ = writeln!(out, "  cwd: {}", scrub(&cwd, &secrets));
                }
            }
            TransportConfig::Http { url, headers } | TransportConfig::Sse { url, headers } => {
                let secrets: Vec<&String> = headers.values().collect();
                let _ = writeln!(out, "  url: {}", mask_url(&scrub(url, &secrets)));
                write_map(&mut out, "headers", headers, ": ");
            }
        }
        let _ = writeln!(
            out,
            "  enabled: {}",
            if self.enabled { "yes" } else { "no" }
        );
        let tools = match (&self.allow_tools, &self.block_tools) {
            (None, None) => "all".to_owned(),
            (Some(allow), None) => format!("allow [{}]", allow.join(", ")),
            (None, Some(block)) => format!("all but [{}]", block.join(", ")),
            (Some(allow), Some(block)) => {
                format!("allow [{}], block [{}]", allow.join(", "), block.join(", "))
            }
        };
        let _ = writeln!(out, "  tools: {tools}");
        let _ = writeln!(
            out,
            "  prefix: {}",
            self.prefix.as_deref().unwrap_or("(none)")
        );
        let options = self.options();
        let default = |set: bool| if set { "" } else { " (default)" };
        let _ = writeln!(
            out,
            "  startup timeout: {:?}{}",
            options.startup_timeout,
            default(self.startup_timeout.is_some())
        );
        let _ = writeln!(
            out,
            "  call timeout: {:?}{}",
            options.call_timeout,
            default(self.call_timeout.is_some())
        );
        let r = &self.restart;
        let _ = writeln!(
            out,
            "  restart: base {:?}, cap {:?}, at most {} attempts",
            r.base, r.cap, r.max_attempts
        );
        let _ = match self.max_concurrent_calls {
            Some(n) => writeln!(out, "  max concurrent calls: {n}"),
            None => writeln!(out, "  max concurrent calls: no limit"),
        };
        out
    }
}

fn write_map(out: &mut String, label: &str, map: &BTreeMap<String, String>, sep: &str) {
    if map.is_empty() {
        return;
    }
    let _ = writeln!(out, "  {label}:");
    for (key, value) in masked_values(map) {
        let _ = writeln!(out, "    {key}{sep}{value}");
    }
}

/// Masked, so that a config never leaks through `{:?}` in a log or a test
/// failure: env and header values as [`mask_secret`], args as
/// [`mask_args`] (and scrubbed of declared env values), URLs as
/// [`mask_url`].
impl fmt::Debug for TransportConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio(p) => {
                let secrets: Vec<&String> = p.env.values().collect();
                let args: Vec<String> = p.args.iter().map(|a| scrub(a, &secrets)).collect();
                f.debug_struct("Stdio")
                    .field("command", &p.command)
                    .field("args", &mask_args(&args))
                    .field("env", &masked_values(&p.env))
                    .field("inherit_env", &p.inherit_env)
                    .field("inherit_all_env", &p.inherit_all_env)
                    .field("cwd", &p.cwd)
                    .finish()
            }
            Self::Http { url, headers } | Self::Sse { url, headers } => f
                .debug_struct(if matches!(self, Self::Http { .. }) {
                    "Http"
                } else {
                    "Sse"
                })
                .field("url", &mask_url(url))
                .field("headers", &masked_values(headers))
                .finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::McpServerStdioParams;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn secret_names_are_matched_case_insensitively() {
        for name in [
            "GITHUB_TOKEN",
            "api_key",
            "x-api-key",
            "Client-Secret",
            "DB_PASSWORD",
            "AWS_CREDENTIALS",
            "Authorization",
            "cookie",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["PATH", "LOG_LEVEL", "HOME", "Accept", "port"] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn mask_secret_never_shows_short_values_and_only_the_tail_of_long_ones() {
        assert_eq!(mask_secret(""), "****");
        assert_eq!(mask_secret("123456789012"), "****");
        assert_eq!(mask_secret("1234567890123"), "****0123");
        assert_eq!(mask_secret("ключ-очень-длинный"), "****нный");
    }

    #[test]
    fn args_with_secret_names_are_masked() {
        let args = strings(&[
            "--token=ghp_0123456789abcdef",
            "API_KEY=short",
            "--password",
            "hunter2",
            "--verbose",
            "Authorization:Bearer xyz",
            "/tmp/data",
            "https://u:p@h.example/x?key=1",
        ]);
        assert_eq!(
            mask_args(&args),
            [
                "--token=****cdef",
                "API_KEY=****",
                "--password",
                "****",
                "--verbose",
                "Authorization: ****",
                "/tmp/data",
                "https://u:****@h.example/x?key=****",
            ]
        );
    }

    #[test]
    fn secret_flag_followed_by_a_flag_masks_nothing_extra() {
        let args = strings(&["--api-key", "--debug", "x"]);
        assert_eq!(mask_args(&args), ["--api-key", "--debug", "x"]);
    }

    #[test]
    fn urls_lose_passwords_and_secret_query_values() {
        assert_eq!(
            mask_url("https://tok@github.com/x"),
            "https://****@github.com/x"
        );
        assert_eq!(mask_url("http://h:1/mcp#frag"), "http://h:1/mcp#frag");
        assert_eq!(
            mask_url("http://h/?a=1&apiKey=2#f"),
            "http://h/?a=1&apiKey=****#f"
        );
        assert_eq!(mask_url("not a url"), "not a url");
    }

    #[test]
    fn describe_and_debug_never_contain_env_values() {
        let secret = "ghp_supersecretvalue123";
        let mut env = BTreeMap::new();
        env.insert("GITHUB_TOKEN".to_owned(), secret.to_owned());
        env.insert("LOG_LEVEL".to_owned(), "debug".to_owned());
        let server = ServerConfig::new(
            "github",
            TransportConfig::Stdio(McpServerStdioParams {
                command: "npx".into(),
                args: strings(&["server-github", "--pat", secret]),
                env,
                ..Default::default()
            }),
        );
        let text = server.describe_masked();
        let debug = format!("{server:?}");
        for rendered in [&text, &debug] {
            assert!(!rendered.contains(secret), "{rendered}");
            assert!(!rendered.contains("debug\""), "{rendered}");
        }
        assert!(text.contains("GITHUB_TOKEN=****e123"), "{text}");
        assert!(text.contains("LOG_LEVEL=****"), "{text}");
    }
}
