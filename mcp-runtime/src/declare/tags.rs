//! Tags: words an item carries (`admin`, `billing`) that a layer or
//! [`Server::only_tags`](crate::Server::only_tags) selects items by. They are the server's
//! own: never sent to clients.

/// The tags of one item, each once, in the order they were added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tags(Vec<String>);

impl Tags {
    /// Adds `tag` (an empty one, or one already there, is left out).
    pub(crate) fn add(&mut self, tag: String) {
        if !tag.is_empty() && !self.0.contains(&tag) {
            self.0.push(tag);
        }
    }

    pub(crate) fn as_slice(&self) -> &[String] {
        &self.0
    }

    /// Whether any of `tags` is one of these.
    pub(crate) fn any_of(&self, tags: &[String]) -> bool {
        self.0.iter().any(|tag| tags.contains(tag))
    }
}
