//! `${VAR}`, `${VAR:-default}`, `${env:VAR}` and `${input:ID}` expansion
//! (rules in the [module docs](super#placeholders)).

/// The environment variable a VS Code `${input:ID}` placeholder is read
/// from: `TOOLBRIDGE_INPUT_` + the id upper-cased, with every character
/// other than ASCII `A-Z` / `0-9` replaced by `_`.
///
/// # Examples
/// ```
/// use toolbridge::config::input_env_var;
/// assert_eq!(input_env_var("github-token"), "TOOLBRIDGE_INPUT_GITHUB_TOKEN");
/// assert_eq!(input_env_var("api.key"), "TOOLBRIDGE_INPUT_API_KEY");
/// ```
pub fn input_env_var(id: &str) -> String {
    let mut name = String::from("TOOLBRIDGE_INPUT_");
    name.extend(id.chars().map(|c| {
        if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        }
    }));
    name
}

/// Why one string could not be expanded; the loader adds file, server and
/// field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExpandError {
    /// `${VAR}` with `VAR` unset and no default.
    MissingVar(String),
    /// `${input:ID}` whose variable is unset.
    MissingInput { id: String, env_var: String },
    /// Malformed placeholder; the message says how to write it.
    Bad(String),
}

/// Expands every placeholder in `text`, reading variables through
/// `lookup`.
pub(crate) fn expand(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("$${") {
            out.push_str("${");
            rest = after;
        } else if let Some(after) = tail.strip_prefix("${") {
            let Some(end) = after.find('}') else {
                return Err(ExpandError::Bad(format!(
                    "'${{{}' has no closing '}}'; write ${{NAME}}, or $${{ for a literal ${{",
                    shorten(after)
                )));
            };
            out.push_str(&resolve(&after[..end], lookup)?);
            rest = &after[end + 1..];
        } else {
            out.push('$');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of one placeholder body (between `${` and `}`).
fn resolve(body: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, ExpandError> {
    let (name, default) = match body.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (body, None),
    };
    let (variable, input) = if let Some(id) = name.strip_prefix("input:") {
        if id.is_empty() {
            return Err(ExpandError::Bad(
                "'${input:}' has no input id; write ${input:ID}".to_owned(),
            ));
        }
        (input_env_var(id), Some(id))
    } else {
        let name = name.strip_prefix("env:").unwrap_or(name);
        if !is_variable_name(name) {
            return Err(ExpandError::Bad(format!(
                "'${{{}}}' is not a valid placeholder; names are letters, digits and '_' \
                 (${{NAME}} or ${{NAME:-default}}), or write $${{ for a literal ${{",
                shorten(body)
            )));
        }
        (name.to_owned(), None)
    };
    match (lookup(&variable), default) {
        (Some(value), Some(default)) if value.is_empty() => Ok(default.to_owned()),
        (Some(value), _) => Ok(value),
        (None, Some(default)) => Ok(default.to_owned()),
        (None, None) => Err(match input {
            Some(id) => ExpandError::MissingInput {
                id: id.to_owned(),
                env_var: variable,
            },
            None => ExpandError::MissingVar(variable),
        }),
    }
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// At most 20 characters of a malformed placeholder, for the message: the
/// text after an unclosed `${` may be a secret.
fn shorten(text: &str) -> String {
    let mut short: String = text.chars().take(20).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".into()),
            "EMPTY" => Some(String::new()),
            "TOOLBRIDGE_INPUT_GITHUB_TOKEN" => Some("ghp_x".into()),
            _ => None,
        }
    }

    fn ex(text: &str) -> Result<String, ExpandError> {
        expand(text, &vars)
    }

    #[test]
    fn plain_text_and_lone_dollars_are_unchanged() {
        assert_eq!(ex("no placeholders").unwrap(), "no placeholders");
        assert_eq!(ex("pa$$word $5 a$").unwrap(), "pa$$word $5 a$");
    }

    #[test]
    fn variables_expand_anywhere_in_the_text() {
        assert_eq!(
            ex("${HOME}/data:${HOME}").unwrap(),
            "/home/me/data:/home/me"
        );
        assert_eq!(ex("${env:HOME}").unwrap(), "/home/me");
    }

    #[test]
    fn default_is_used_when_unset_or_empty() {
        assert_eq!(ex("${NOPE:-fallback}").unwrap(), "fallback");
        assert_eq!(ex("${EMPTY:-fallback}").unwrap(), "fallback");
        assert_eq!(ex("${HOME:-fallback}").unwrap(), "/home/me");
        assert_eq!(ex("${NOPE:-}").unwrap(), "");
        assert_eq!(ex("${NOPE:-a:-b c}").unwrap(), "a:-b c");
    }

    #[test]
    fn empty_variable_without_default_is_empty_not_missing() {
        assert_eq!(ex("[${EMPTY}]").unwrap(), "[]");
    }

    #[test]
    fn missing_variable_is_an_error_naming_it() {
        assert_eq!(
            ex("x ${NOPE} y"),
            Err(ExpandError::MissingVar("NOPE".into()))
        );
    }

    #[test]
    fn double_dollar_brace_is_a_literal_placeholder() {
        assert_eq!(ex("$${HOME} ${HOME}").unwrap(), "${HOME} /home/me");
    }

    #[test]
    fn inputs_read_their_environment_variable() {
        assert_eq!(ex("Bearer ${input:github-token}").unwrap(), "Bearer ghp_x");
        assert_eq!(
            ex("${input:other}"),
            Err(ExpandError::MissingInput {
                id: "other".into(),
                env_var: "TOOLBRIDGE_INPUT_OTHER".into()
            })
        );
        assert_eq!(ex("${input:other:-d}").unwrap(), "d");
    }

    #[test]
    fn malformed_placeholders_are_errors() {
        assert!(matches!(ex("${HOME"), Err(ExpandError::Bad(m)) if m.contains("no closing")));
        assert!(matches!(ex("${}"), Err(ExpandError::Bad(_))));
        assert!(matches!(ex("${A B}"), Err(ExpandError::Bad(_))));
        assert!(matches!(ex("${1X}"), Err(ExpandError::Bad(_))));
        assert!(matches!(ex("${input:}"), Err(ExpandError::Bad(_))));
    }

    #[test]
    fn unclosed_placeholder_message_does_not_echo_long_text() {
        let Err(ExpandError::Bad(message)) = ex("${ghp_0123456789abcdefghijklmnop") else {
            panic!("expected an error");
        };
        assert!(!message.contains("klmnop"), "{message}");
    }

    #[test]
    fn input_env_var_upper_cases_and_replaces_punctuation() {
        assert_eq!(
            input_env_var("perplexity-key"),
            "TOOLBRIDGE_INPUT_PERPLEXITY_KEY"
        );
        assert_eq!(input_env_var("a.b c"), "TOOLBRIDGE_INPUT_A_B_C");
    }
}
