//! [`ToolFilter`]: which of a server's tools to expose.

use std::{collections::HashSet, sync::Arc};

use crate::ToolSpec;

/// A predicate over a tool's spec (with the server's original name).
pub type ToolPredicate = dyn Fn(&ToolSpec) -> bool + Send + Sync;

/// Chooses which tools pass: an allow set, a block set, or a predicate.
///
/// Mirrors the OpenAI Agents SDK's MCP tool filter (`allowed_tool_names`,
/// `blocked_tool_names`, and a callable filter). Evaluation order:
/// 1. if `filter_func` is set, its answer is final;
/// 2. if `allowed_tool_names` is set, only names in it pass;
/// 3. names in `blocked_tool_names` are excluded;
/// 4. otherwise the tool passes.
///
/// The filter sees the server's original tool name, before any prefix.
///
/// # Examples
/// ```
/// use toolbridge_core::{ToolFilter, ToolSpec};
/// let filter = ToolFilter::allow(["read_file"]);
/// let spec = |name: &str| ToolSpec::new(name, "", serde_json::json!({}));
/// assert!(filter.passes(&spec("read_file")));
/// assert!(!filter.passes(&spec("write_file")));
/// ```
#[derive(Clone, Default)]
pub struct ToolFilter {
    /// Only these names pass, when set.
    pub allowed_tool_names: Option<HashSet<String>>,
    /// These names never pass (unless `filter_func` says otherwise).
    pub blocked_tool_names: Option<HashSet<String>>,
    /// A predicate whose answer is final, when set.
    pub filter_func: Option<Arc<ToolPredicate>>,
}

impl std::fmt::Debug for ToolFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolFilter")
            .field("allowed_tool_names", &self.allowed_tool_names)
            .field("blocked_tool_names", &self.blocked_tool_names)
            .field("filter_func", &self.filter_func.as_ref().map(|_| "<fn>"))
            .finish()
    }
}

impl ToolFilter {
    /// A filter that lets every tool pass.
    pub fn all() -> Self {
        Self::default()
    }

    /// A filter that lets only `names` pass.
    pub fn allow<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            allowed_tool_names: Some(names.into_iter().map(Into::into).collect()),
            ..Self::default()
        }
    }

    /// A filter that lets every tool but `names` pass.
    pub fn block<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            blocked_tool_names: Some(names.into_iter().map(Into::into).collect()),
            ..Self::default()
        }
    }

    /// A filter decided by `predicate` alone.
    pub fn from_fn(predicate: impl Fn(&ToolSpec) -> bool + Send + Sync + 'static) -> Self {
        Self {
            filter_func: Some(Arc::new(predicate)),
            ..Self::default()
        }
    }

    /// Adds names to the block set.
    pub fn and_block<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.blocked_tool_names
            .get_or_insert_with(HashSet::new)
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// Whether the tool described by `spec` passes (see the type's docs for
    /// the order of evaluation).
    pub fn passes(&self, spec: &ToolSpec) -> bool {
        if let Some(predicate) = &self.filter_func {
            return predicate(spec);
        }
        if let Some(allowed) = &self.allowed_tool_names
            && !allowed.contains(&spec.name)
        {
            return false;
        }
        if let Some(blocked) = &self.blocked_tool_names
            && blocked.contains(&spec.name)
        {
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str) -> ToolSpec {
        ToolSpec::new(name, "", serde_json::json!({}))
    }

    #[test]
    fn empty_filter_passes_everything() {
        assert!(ToolFilter::all().passes(&spec("x")));
    }

    #[test]
    fn allow_then_block_both_apply() {
        let filter = ToolFilter::allow(["a", "b"]).and_block(["b"]);
        assert!(filter.passes(&spec("a")));
        assert!(
            !filter.passes(&spec("b")),
            "blocked wins inside the allow set"
        );
        assert!(!filter.passes(&spec("c")), "not in the allow set");
    }

    #[test]
    fn predicate_answer_is_final() {
        let mut filter = ToolFilter::from_fn(|s| s.name.starts_with("read"));
        filter.blocked_tool_names = Some(["read_file".to_owned()].into());
        filter.allowed_tool_names = Some(["other".to_owned()].into());
        assert!(filter.passes(&spec("read_file")));
        assert!(!filter.passes(&spec("other")));
    }
}
