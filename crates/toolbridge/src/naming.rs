//! Exposed names: many servers' tools in one namespace that LLM APIs accept.
//!
//! The hub shows every tool of every server to a model under one *exposed
//! name*. This module turns `(server, tool)` pairs into those names and
//! keeps the table that routes them back. It is pure: no I/O, no MCP types.
//!
//! # Rules
//! An exposed name is built in three steps:
//!
//! 1. **Natural name.** [`NameStyle::Namespaced`] gives
//!    `mcp_{server}_{tool}`; [`NameStyle::Prefixed`] gives
//!    `{prefix}__{tool}` (the prefix defaults to the server name). Every
//!    fragment goes through [`sanitize`] first.
//! 2. **Length.** A natural name longer than [`MAX_EXPOSED_NAME_LEN`] (64)
//!    is truncated and gets a hash suffix (below). A name of exactly 64
//!    characters is kept as it is.
//! 3. **Collisions.** When two or more entries have the same natural name
//!    (tools `a.b` and `a_b` on one server; server `a_b` with tool `c` and
//!    server `a` with tool `b_c`), **all** of them get a hash suffix; none
//!    keeps the bare name.
//!
//! The hash suffix is `_` followed by [`HASH_LEN`] (6) lowercase base-36
//! characters of FNV-1a 64 over the *original* (unsanitized) server and tool
//! names. The natural name is cut to `64 - 7` characters before the suffix
//! is added, so a suffixed name is at most 64 characters.
//!
//! Why every colliding entry is suffixed, not all but the first: with "the
//! first keeps the bare name", adding a server could hand an existing bare
//! name to a *different* tool (whichever now sorts first), and a model or
//! a saved transcript calling that name would silently reach the wrong tool.
//! With "all are suffixed", an ambiguous name is never exposed at all, a
//! suffixed name always carries the hash of its own `(server, tool)`, and
//! the outcome cannot depend on input order.
//!
//! In the rare case that a suffixed name equals another entry's name (a
//! tool literally named like a hashed name, or two pairs whose hashes
//! coincide), the later entry in `(server, tool)` order is hashed again
//! with a salt until its name is free. Bare names always win over hashed
//! ones, so they never move.
//!
//! Every name in the table is therefore only `[A-Za-z0-9_-]`, between 1
//! and 64 characters, unique, and a function of the *set* of requests alone:
//! the same set in any order gives the same table, in any run, on any Rust
//! version (the hash is written here, not `std`'s `DefaultHasher`, whose
//! output may change between releases).
//!
//! Routing uses the table ([`ExposedNames::resolve`]), never string
//! splitting: `mcp_a_b_c` alone cannot say whether the server is `a` or
//! `a_b`.
//!
//! # Why 64
//! OpenAI function names must match `^[a-zA-Z0-9_-]{1,64}$`, the tightest
//! rule among the LLM APIs we target (the tool registry's own limit is 128),
//! so a name that passes here is accepted wherever the hub's tools go.
//!
//! # Examples
//! ```
//! use toolbridge::naming::{ExposedNames, NameRequest, NameStyle};
//!
//! let names = ExposedNames::build([
//!     NameRequest::new("filesystem", "read_file"),
//!     NameRequest::new("git", "status").with_style(NameStyle::Prefixed),
//!     // These two would both be `mcp_a_b_c`: both get a hash suffix.
//!     NameRequest::new("a_b", "c"),
//!     NameRequest::new("a", "b_c"),
//! ]);
//!
//! assert_eq!(names.exposed_for("filesystem", "read_file"), Some("mcp_filesystem_read_file"));
//! assert_eq!(names.resolve("git__status"), Some(("git", "status")));
//! assert_eq!(names.resolve("mcp_a_b_c"), None);
//! let ab_c = names.exposed_for("a_b", "c").ok_or("missing")?;
//! assert!(ab_c.starts_with("mcp_a_b_c_") && ab_c.len() == "mcp_a_b_c_".len() + 6);
//! assert_eq!(names.resolve(ab_c), Some(("a_b", "c")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};

/// The longest exposed name, in characters (and bytes: names are ASCII).
///
/// OpenAI function names must match `^[a-zA-Z0-9_-]{1,64}$`; 64 is the
/// tightest limit among the major LLM APIs.
pub const MAX_EXPOSED_NAME_LEN: usize = 64;

/// The number of characters in a hash suffix (after its `_`).
///
/// Six base-36 characters hold about 31 bits: enough that two pairs in one
/// table sharing a hash is very unlikely, and handled (by salting) if it
/// happens.
pub const HASH_LEN: usize = 6;

/// How a tool's natural exposed name is formed.
///
/// The choice is per [`NameRequest`], so one table can hold servers named
/// in either style.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NameStyle {
    /// `mcp_{server}_{tool}`, e.g. `mcp_filesystem_read_file`. The default.
    #[default]
    Namespaced,
    /// `{prefix}__{tool}`, e.g. `fs__read_file`; the prefix is the
    /// request's [`NameRequest::prefix`], or the server name when unset.
    /// This matches the bridge's `BridgeOptions::with_name_prefix`.
    Prefixed,
}

/// One tool to name: which server, which tool, and in what style.
///
/// `server` and `tool` are the original names (the server's configured
/// name, the tool's name as the server lists it); they are what
/// [`ExposedNames::resolve`] gives back and what the hash is taken over.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NameRequest {
    /// The server's name, as configured.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// How to form the natural name.
    pub style: NameStyle,
    /// The prefix for [`NameStyle::Prefixed`] (sanitized before use); the
    /// server name when `None`. Ignored by [`NameStyle::Namespaced`].
    pub prefix: Option<String>,
}

impl NameRequest {
    /// A request in the default style ([`NameStyle::Namespaced`]) with no
    /// prefix.
    pub fn new(server: impl Into<String>, tool: impl Into<String>) -> Self {
        Self {
            server: server.into(),
            tool: tool.into(),
            style: NameStyle::default(),
            prefix: None,
        }
    }

    /// Sets the style.
    pub fn with_style(mut self, style: NameStyle) -> Self {
        self.style = style;
        self
    }

    /// Sets the prefix and switches to [`NameStyle::Prefixed`] (the only
    /// style that uses it).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self.style = NameStyle::Prefixed;
        self
    }

    /// The natural exposed name, before length and collision handling:
    /// `mcp_{server}_{tool}` or `{prefix}__{tool}`, each fragment
    /// [sanitized](sanitize). It may be longer than
    /// [`MAX_EXPOSED_NAME_LEN`]; [`ExposedNames::build`] deals with that.
    pub fn natural_name(&self) -> String {
        let tool = sanitize(&self.tool);
        match self.style {
            NameStyle::Namespaced => format!("mcp_{}_{tool}", sanitize(&self.server)),
            NameStyle::Prefixed => {
                let prefix = self.prefix.as_deref().unwrap_or(&self.server);
                format!("{}__{tool}", sanitize(prefix))
            }
        }
    }
}

/// Replaces every character outside `[A-Za-z0-9_-]` with `_`.
///
/// One `_` per character (not per byte), so `café.v2` becomes `caf__v2`.
/// Runs of `_` are **not** collapsed: keeping the mapping one-for-one makes
/// it predictable, and collapsing would only add collisions, which
/// [`ExposedNames`] resolves anyway. The output is ASCII, so its length in
/// bytes equals its length in characters and it can be cut at any byte.
///
/// # Examples
/// ```
/// use toolbridge::naming::sanitize;
///
/// assert_eq!(sanitize("read_file"), "read_file");
/// assert_eq!(sanitize("fs/read file.v2"), "fs_read_file_v2");
/// assert_eq!(sanitize("日本"), "__");
/// ```
pub fn sanitize(fragment: &str) -> String {
    fragment
        .chars()
        .map(|c| if is_allowed(c) { c } else { '_' })
        .collect()
}

/// Whether `c` may appear in an exposed name.
fn is_allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// FNV-1a, 64-bit: continues `hash` over `bytes`. Start from
/// [`FNV_OFFSET_BASIS`].
fn fnv1a_update(hash: u64, bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(hash, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// FNV-1a's 64-bit initial value.
const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a 64 over `server`, a `0xFF` separator, `tool`, and for a non-zero
/// salt another `0xFF` and the salt in decimal.
///
/// `0xFF` never occurs in UTF-8, so `("ab", "c")` and `("a", "bc")` hash
/// different inputs. Written out here because it must never change: the
/// exposed names that users and transcripts see depend on it.
fn fnv1a(server: &str, tool: &str, salt: u32) -> u64 {
    let mut hash = fnv1a_update(FNV_OFFSET_BASIS, server.as_bytes());
    hash = fnv1a_update(hash, &[0xFF]);
    hash = fnv1a_update(hash, tool.as_bytes());
    if salt != 0 {
        hash = fnv1a_update(hash, &[0xFF]);
        hash = fnv1a_update(hash, salt.to_string().as_bytes());
    }
    hash
}

/// The [`HASH_LEN`]-character lowercase base-36 hash of a pair (and salt).
fn short_hash(server: &str, tool: &str, salt: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut value = fnv1a(server, tool, salt);
    let mut out = [b'0'; HASH_LEN];
    for slot in out.iter_mut().rev() {
        // `value % 36` is below 36, so the index is in bounds and the cast
        // cannot truncate.
        *slot = DIGITS[(value % 36) as usize];
        value /= 36;
    }
    out.iter().map(|&b| char::from(b)).collect()
}

/// `natural` cut to fit, then `_` and the pair's hash: at most
/// [`MAX_EXPOSED_NAME_LEN`] characters.
fn hashed_name(natural: &str, server: &str, tool: &str, salt: u32) -> String {
    let keep = MAX_EXPOSED_NAME_LEN - HASH_LEN - 1;
    // `natural` is ASCII (every fragment was sanitized), so any byte index
    // is a character boundary.
    let base = natural.get(..keep).unwrap_or(natural);
    format!("{base}_{}", short_hash(server, tool, salt))
}

/// One row of an [`ExposedNames`] table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExposedName {
    server: String,
    tool: String,
    exposed: String,
    hashed: bool,
}

impl ExposedName {
    /// The server's original name.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The tool's original name on that server.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The exposed name: `[A-Za-z0-9_-]{1,64}`, unique in its table.
    pub fn exposed(&self) -> &str {
        &self.exposed
    }

    /// Whether the name carries a hash suffix (it was too long or its
    /// natural name collided), i.e. it differs from
    /// [`NameRequest::natural_name`].
    pub fn hashed(&self) -> bool {
        self.hashed
    }
}

/// A table of exposed names for many servers' tools, and the lookups that
/// route them back.
///
/// Built once from the full list of tools (at list time, and again after a
/// `tools/list_changed` refresh); see the [module docs](self) for the
/// rules. Rows are kept sorted by `(server, tool)`, which is the iteration
/// order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExposedNames {
    /// Sorted by `(server, tool)`, one row per pair.
    rows: Vec<ExposedName>,
    /// Exposed name → index into `rows`.
    by_exposed: HashMap<String, usize>,
}

impl ExposedNames {
    /// Builds the table from every tool to expose.
    ///
    /// The result depends only on the set of requests, never on their
    /// order. A pair `(server, tool)` requested more than once is named
    /// once; the request that sorts first (by style, `Namespaced` before
    /// `Prefixed`, then prefix) decides its style. Names are never empty:
    /// both styles add fixed characters.
    ///
    /// # Examples
    /// ```
    /// use toolbridge::naming::{ExposedNames, NameRequest};
    ///
    /// let long_tool = "x".repeat(100);
    /// let names = ExposedNames::build([NameRequest::new("fs", long_tool.as_str())]);
    /// let exposed = names.exposed_for("fs", &long_tool).ok_or("missing")?;
    /// assert_eq!(exposed.len(), 64);
    /// assert_eq!(names.resolve(exposed), Some(("fs", long_tool.as_str())));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(entries: impl IntoIterator<Item = NameRequest>) -> Self {
        let mut requests: Vec<NameRequest> = entries.into_iter().collect();
        // Sorting on every field makes the choice among duplicates (and
        // everything after) independent of input order.
        requests.sort();
        requests.dedup_by(|later, first| later.server == first.server && later.tool == first.tool);

        let naturals: Vec<String> = requests.iter().map(NameRequest::natural_name).collect();
        let mut natural_counts: HashMap<&str, usize> = HashMap::new();
        for natural in &naturals {
            *natural_counts.entry(natural.as_str()).or_default() += 1;
        }
        let keeps_bare = |natural: &str| {
            natural.len() <= MAX_EXPOSED_NAME_LEN && natural_counts.get(natural) == Some(&1)
        };

        // Bare names first, so a hashed name can never displace one.
        let mut taken: HashSet<String> = naturals
            .iter()
            .filter(|natural| keeps_bare(natural))
            .cloned()
            .collect();

        let mut rows = Vec::with_capacity(requests.len());
        for (request, natural) in requests.into_iter().zip(&naturals) {
            let (exposed, hashed) = if keeps_bare(natural) {
                (natural.clone(), false)
            } else {
                // Rows are visited in sorted order, so which row salts on a
                // clash is deterministic. Terminates: the table is far
                // smaller than the 36^6 possible suffixes.
                let mut salt = 0;
                let mut candidate = hashed_name(natural, &request.server, &request.tool, salt);
                while taken.contains(&candidate) {
                    salt += 1;
                    candidate = hashed_name(natural, &request.server, &request.tool, salt);
                }
                taken.insert(candidate.clone());
                (candidate, true)
            };
            rows.push(ExposedName {
                server: request.server,
                tool: request.tool,
                exposed,
                hashed,
            });
        }

        let by_exposed = rows
            .iter()
            .enumerate()
            .map(|(index, row)| (row.exposed.clone(), index))
            .collect();
        Self { rows, by_exposed }
    }

    /// The `(server, tool)` an exposed name routes to, by table lookup;
    /// `None` when the table has no such name.
    pub fn resolve(&self, exposed: &str) -> Option<(&str, &str)> {
        let row = self.rows.get(*self.by_exposed.get(exposed)?)?;
        Some((&row.server, &row.tool))
    }

    /// The exposed name of a server's tool (original names); `None` when
    /// the pair is not in the table.
    pub fn exposed_for(&self, server: &str, tool: &str) -> Option<&str> {
        self.rows
            .binary_search_by(|row| (row.server.as_str(), row.tool.as_str()).cmp(&(server, tool)))
            .ok()
            .and_then(|index| self.rows.get(index))
            .map(|row| row.exposed.as_str())
    }

    /// Every row, sorted by `(server, tool)`.
    pub fn iter(&self) -> std::slice::Iter<'_, ExposedName> {
        self.rows.iter()
    }

    /// The number of rows (distinct `(server, tool)` pairs).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl<'a> IntoIterator for &'a ExposedNames {
    type Item = &'a ExposedName;
    type IntoIter = std::slice::Iter<'a, ExposedName>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests;
