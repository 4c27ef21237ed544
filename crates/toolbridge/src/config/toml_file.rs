//! `toolbridge.toml` as written (the layout is in the
//! [module docs](super#formats)). Unknown keys are rejected so that a typo
//! such as `startup_timeout = 30` is an error, not a silent default.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{json::Ordered, model::AuditConfig};

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TomlFile {
    #[serde(default)]
    pub(crate) servers: Ordered<TomlServer>,
    pub(crate) command_allowlist: Option<Vec<String>>,
    pub(crate) audit: Option<AuditConfig>,
}

/// One `[servers.NAME]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TomlServer {
    #[serde(alias = "type")]
    pub(crate) transport: Option<String>,
    pub(crate) command: Option<String>,
    #[serde(default)]
    pub(crate) args: Vec<String>,
    #[serde(default)]
    pub(crate) env: BTreeMap<String, String>,
    #[serde(default)]
    pub(crate) inherit_env: Vec<String>,
    #[serde(default)]
    pub(crate) inherit_all_env: bool,
    pub(crate) cwd: Option<String>,
    pub(crate) url: Option<String>,
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) enabled: Option<bool>,
    pub(crate) allow_tools: Option<Vec<String>>,
    pub(crate) block_tools: Option<Vec<String>>,
    pub(crate) prefix: Option<String>,
    pub(crate) startup_timeout_secs: Option<f64>,
    pub(crate) call_timeout_secs: Option<f64>,
    pub(crate) restart: Option<TomlRestart>,
    pub(crate) max_concurrent_calls: Option<usize>,
}

/// `[servers.NAME.restart]`; unset keys take
/// [`RestartPolicy::default`](super::RestartPolicy).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TomlRestart {
    pub(crate) base_secs: Option<f64>,
    pub(crate) cap_secs: Option<f64>,
    pub(crate) max_attempts: Option<u32>,
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one() {
        let text = "a = 1\nbé = x\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        assert_eq!(line_column(text, text.find('x').unwrap_or(0)), (2, 6));
    }
}
