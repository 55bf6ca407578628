//! Protocol revisions and the features each one has.

use std::fmt;

/// A revision of the Model Context Protocol.
///
/// Code that depends on what a revision can carry asks [`Revision::supports`]; it never
/// compares date strings.
///
/// ```
/// use mcp_runtime::protocol::{Feature, Revision};
/// let rev = Revision::parse("2025-06-18").unwrap();
/// assert!(rev.supports(Feature::StructuredContent));
/// assert!(!Revision::V2024_11_05.supports(Feature::AudioContent));
/// assert_eq!(Revision::LATEST_HANDSHAKE.as_str(), "2025-11-25");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Revision {
    /// 2024-11-05, the first revision.
    V2024_11_05,
    /// 2025-03-26: tool annotations, audio, batches, completions capability.
    V2025_03_26,
    /// 2025-06-18: structured tool output, resource links, titles, elicitation.
    V2025_06_18,
    /// 2025-11-25: icons, tasks, the last handshake revision.
    V2025_11_25,
    /// 2026-07-28: stateless, no handshake, per-request `_meta`.
    V2026_07_28,
}

/// A protocol feature whose presence depends on the revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Feature {
    /// `initialize` → result → `notifications/initialized`, `ping`, `logging/setLevel`.
    Handshake,
    /// Per-request `_meta` instead of a handshake; `resultType`, `ttlMs`, `cacheScope`.
    Stateless,
    /// JSON-RPC batches (2025-03-26 only).
    Batching,
    /// `annotations` on tools.
    ToolAnnotations,
    /// `audio` content blocks.
    AudioContent,
    /// The `completions` server capability.
    CompletionsCapability,
    /// `message` on progress notifications.
    ProgressMessage,
    /// `structuredContent` on tool results and `outputSchema` on tools (objects only before
    /// 2026-07-28).
    StructuredContent,
    /// `structuredContent` and `outputSchema` of any JSON type, not just objects.
    AnyStructuredContent,
    /// `resource_link` content blocks.
    ResourceLinks,
    /// `title` on tools, prompts, resources and implementations.
    Titles,
    /// `_meta` on content blocks, tools and resource contents.
    ContentMeta,
    /// `lastModified` in content annotations.
    LastModified,
    /// Server→client `elicitation/create`.
    Elicitation,
    /// `icons` on tools, prompts, resources and implementations; `description` and
    /// `websiteUrl` on implementations.
    Icons,
    /// Task-augmented requests (2025-11-25 only).
    Tasks,
    /// Elicitation modes: `mode` on form requests, and URL elicitation.
    ElicitationModes,
    /// `extensions` in the server's and the client's capabilities.
    Extensions,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: [Revision; 5] = [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    /// The revisions negotiated through `initialize`.
    pub const HANDSHAKE: [Revision; 4] =
        [Revision::V2024_11_05, Revision::V2025_03_26, Revision::V2025_06_18, Revision::V2025_11_25];

    /// The newest revision negotiated through `initialize`: the answer to an `initialize`
    /// asking for a revision the server does not speak that way.
    pub const LATEST_HANDSHAKE: Revision = Revision::V2025_11_25;

    /// The newest revision.
    pub const LATEST: Revision = Revision::V2026_07_28;

    /// The revision's date string, as sent on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision named by a date string, if it is one this crate serves.
    pub fn parse(s: &str) -> Option<Revision> {
        Revision::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether this revision has `feature`.
    pub const fn supports(self, feature: Feature) -> bool {
        use Revision::*;
        match feature {
            Feature::Handshake => !matches!(self, V2026_07_28),
            Feature::Stateless | Feature::AnyStructuredContent | Feature::Extensions => matches!(self, V2026_07_28),
            Feature::Batching => matches!(self, V2025_03_26),
            Feature::ToolAnnotations
            | Feature::AudioContent
            | Feature::CompletionsCapability
            | Feature::ProgressMessage => !matches!(self, V2024_11_05),
            Feature::StructuredContent
            | Feature::ResourceLinks
            | Feature::Titles
            | Feature::ContentMeta
            | Feature::LastModified
            | Feature::Elicitation => !matches!(self, V2024_11_05 | V2025_03_26),
            Feature::Icons | Feature::ElicitationModes => matches!(self, V2025_11_25 | V2026_07_28),
            Feature::Tasks => matches!(self, V2025_11_25),
        }
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_round_trips_every_revision() {
        for rev in Revision::ALL {
            assert_eq!(Revision::parse(rev.as_str()), Some(rev));
        }
        assert_eq!(Revision::parse("2025-01-01"), None);
    }

    #[test]
    fn features_follow_the_revisions() {
        assert!(Revision::V2025_03_26.supports(Feature::Batching));
        assert!(!Revision::V2025_06_18.supports(Feature::Batching));
        assert!(!Revision::V2026_07_28.supports(Feature::Handshake));
        assert!(Revision::V2025_11_25.supports(Feature::Icons));
        assert!(!Revision::V2025_06_18.supports(Feature::Icons));
        assert!(Revision::V2025_06_18.supports(Feature::ResourceLinks));
        assert!(!Revision::V2025_03_26.supports(Feature::ResourceLinks));
    }
}
