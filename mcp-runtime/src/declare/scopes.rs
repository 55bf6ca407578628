//! Scopes: what an item needs of a caller's token (`scopes("notes:write")`,
//! `.scope("notes:write")`). Over HTTP with authorization, a call, read or get of the item
//! without all of them is refused before its handler runs, and lists leave it out; the
//! protected-resource metadata lists every scope declared.

use std::sync::Arc;

/// The scopes of one item, each once, in the order they were added (shared: every request
/// aimed at the item carries them through the layers).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Scopes(Arc<[String]>);

impl Scopes {
    /// Adds `scope` (an empty one, or one already there, is left out). Declaring only.
    pub(crate) fn add(&mut self, scope: String) {
        if !scope.is_empty() && !self.0.contains(&scope) {
            let mut all = self.0.to_vec();
            all.push(scope);
            self.0 = all.into();
        }
    }

    pub(crate) fn as_slice(&self) -> &[String] {
        &self.0
    }
}

/// Whether `scope` is one scope token (RFC 6749 §3.3: visible ASCII but `"` and `\`).
pub(crate) fn is_scope(scope: &str) -> bool {
    (1..=128).contains(&scope.len()) && scope.bytes().all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
}
