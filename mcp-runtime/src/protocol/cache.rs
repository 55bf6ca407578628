//! How long 2026-07-28 clients may cache a result (`ttlMs`, `cacheScope`).

use std::time::Duration;

/// Who may share a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheScope {
    /// Any client of this server may reuse it (the same answer for everyone).
    Public,
    /// Only the client that asked (the answer depends on who asks, e.g. on authorization).
    Private,
}

impl CacheScope {
    /// The wire value.
    pub const fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// The caching fields of a 2026-07-28 result.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::{CachePolicy, CacheScope};
/// let policy = CachePolicy::new(Duration::from_secs(5), CacheScope::Private);
/// assert_eq!(policy.ttl_ms(), 5000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachePolicy {
    ttl: Duration,
    scope: CacheScope,
}

impl CachePolicy {
    /// Cacheable for `ttl`, by `scope`.
    pub const fn new(ttl: Duration, scope: CacheScope) -> Self {
        CachePolicy { ttl, scope }
    }

    /// Not to be reused: `ttlMs: 0`.
    pub const fn no_cache(scope: CacheScope) -> Self {
        CachePolicy { ttl: Duration::ZERO, scope }
    }

    /// The time to live in milliseconds, as sent.
    pub fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// The scope, as sent.
    pub const fn scope(&self) -> CacheScope {
        self.scope
    }
}

impl Default for CachePolicy {
    /// One minute, public: declarations change only when the server's lists change.
    fn default() -> Self {
        CachePolicy::new(Duration::from_secs(60), CacheScope::Public)
    }
}

/// A result kind that carries caching fields in 2026-07-28.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cacheable {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    ToolList,
    /// `resources/list`.
    ResourceList,
    /// `resources/templates/list`.
    ResourceTemplateList,
    /// `prompts/list`.
    PromptList,
    /// `skills/list` and `skills/get` (the skills extension).
    Skills,
}

/// The policy of each cached result kind.
#[derive(Debug, Clone, Default)]
pub(crate) struct CachePolicies {
    overrides: Vec<(Cacheable, CachePolicy)>,
}

impl CachePolicies {
    pub(crate) fn set(&mut self, kind: Cacheable, policy: CachePolicy) {
        self.overrides.retain(|(k, _)| *k != kind);
        self.overrides.push((kind, policy));
    }

    pub(crate) fn get(&self, kind: Cacheable) -> CachePolicy {
        self.overrides.iter().find(|(k, _)| *k == kind).map(|(_, p)| *p).unwrap_or_default()
    }
}
