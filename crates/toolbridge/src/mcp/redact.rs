//! [`Redactions`]: the secret values configured for one server, replaced
//! by `****` in everything toolbridge prints or stores about it.
//!
//! Every env value set for a stdio server and every header value set for
//! an HTTP server counts as secret, as does the query string of its URL: a
//! server (or an HTTP library) that echoes them in an error, on stderr or
//! on stdout must not put them in logs, error messages or the audit log.

/// Values shorter than this are not redacted (`1`, `true` would mangle
/// every message).
const MIN_LEN: usize = 6;

/// Secret values of one server and their replacement.
#[derive(Debug, Clone, Default)]
pub(crate) struct Redactions {
    /// (secret, replacement), longest secret first so a secret containing
    /// another is replaced whole.
    pairs: Vec<(String, String)>,
}

impl Redactions {
    /// Redactions for these secret values.
    pub(crate) fn new<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut redactions = Self::default();
        for value in values {
            redactions.add(value.into(), "****".to_owned());
        }
        redactions
    }

    fn add(&mut self, secret: String, replacement: String) {
        if secret.len() >= MIN_LEN && !self.pairs.iter().any(|(s, _)| *s == secret) {
            self.pairs.push((secret, replacement));
            self.pairs.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
        }
    }

    /// Also hides a URL's secret parts: the whole URL is replaced by its
    /// masked form wherever it appears, and each query value is redacted.
    pub(crate) fn with_url(mut self, url: &str) -> Self {
        let masked = crate::config::mask::mask_url(url);
        if masked != url {
            self.add(url.to_owned(), masked);
        }
        if let Some((_, query)) = url.split_once('?') {
            for pair in query.split('&') {
                if let Some((_, value)) = pair.split_once('=') {
                    self.add(value.to_owned(), "****".to_owned());
                }
            }
        }
        self
    }

    /// Also redacts the token of `Bearer <token>` / `Basic <token>` values.
    pub(crate) fn with_header_values<'a>(
        mut self,
        values: impl IntoIterator<Item = &'a String>,
    ) -> Self {
        for value in values {
            self.add(value.clone(), "****".to_owned());
            if let Some((_, token)) = value.split_once(' ') {
                self.add(token.trim().to_owned(), "****".to_owned());
            }
        }
        self
    }

    /// Whether there is nothing to redact.
    pub(crate) fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// `text` with every secret replaced.
    pub(crate) fn apply(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (secret, replacement) in &self.pairs {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), replacement);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_values_url_queries_and_bearer_tokens_are_hidden() {
        let headers = vec!["Bearer sk-headersecret-777".to_owned()];
        let redactions = Redactions::new(["sk-live-SUPERSECRET-0001", "1"])
            .with_url("http://h/mcp?api_key=sk-urlsecret-555")
            .with_header_values(&headers);
        let text = redactions.apply(
            "token sk-live-SUPERSECRET-0001 at http://h/mcp?api_key=sk-urlsecret-555, got Bearer sk-headersecret-777; 1 left",
        );
        assert!(!text.contains("SUPERSECRET"), "{text}");
        assert!(!text.contains("sk-urlsecret-555"), "{text}");
        assert!(!text.contains("sk-headersecret-777"), "{text}");
        assert!(
            text.ends_with("1 left"),
            "short values are not touched: {text}"
        );
    }
}
