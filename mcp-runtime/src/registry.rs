//! The immutable registry of a built server: tools sorted by name, looked up by binary search.

use std::sync::Arc;

use crate::error::Error;
use crate::protocol::{ErrorObject, Feature, Revision, Tool, is_object_schema, wrapped_output_schema};
use crate::tool::{ToolDescriptor, ToolHandler, is_valid_tool_name};

/// A registered tool, ready to list and call.
pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    pub(crate) name: Arc<str>,
    pub(crate) handler: ToolHandler,
    /// The output schema is not an object: structured output goes out as `{"result": …}`
    /// where a revision allows objects only.
    pub(crate) wrap_output: bool,
}

impl ToolEntry {
    /// The listing entry as `revision` defines it.
    pub(crate) fn listing(&self, revision: Revision) -> Tool {
        let mut tool = self.tool.clone();
        if !revision.supports(Feature::Titles) {
            tool.title = None;
        }
        if !revision.supports(Feature::ToolAnnotations) {
            tool.annotations = None;
        }
        if !revision.supports(Feature::Icons) {
            tool.icons = None;
        }
        if !revision.supports(Feature::ContentMeta) {
            tool.meta = None;
        }
        tool.output_schema = match tool.output_schema.take() {
            Some(_) if !revision.supports(Feature::StructuredContent) => None,
            Some(schema) if self.wrap_output && !revision.supports(Feature::AnyStructuredContent) => {
                Some(wrapped_output_schema(&schema))
            }
            other => other,
        };
        tool
    }
}

/// Every item a server offers, fixed when it is built.
pub(crate) struct Registry {
    tools: Vec<ToolEntry>,
}

impl Registry {
    pub(crate) fn build(mut descriptors: Vec<ToolDescriptor>) -> Result<Registry, Error> {
        descriptors.sort_by(|a, b| a.tool.name.cmp(&b.tool.name));
        if let Some(pair) = descriptors.windows(2).find(|w| w[0].tool.name == w[1].tool.name) {
            return Err(Error::DuplicateTool {
                name: pair[0].tool.name.clone(),
                first: pair[0].defined_at.to_string(),
                second: pair[1].defined_at.to_string(),
            });
        }
        let tools = descriptors
            .into_iter()
            .map(|d| {
                if !is_valid_tool_name(&d.tool.name) {
                    return Err(Error::InvalidToolName { name: d.tool.name });
                }
                let handler = d.handler.ok_or_else(|| Error::MissingHandler { name: d.tool.name.clone() })?;
                let wrap_output = d.tool.output_schema.as_ref().is_some_and(|s| !is_object_schema(s));
                Ok(ToolEntry { name: Arc::from(d.tool.name.as_str()), tool: d.tool, handler, wrap_output })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Registry { tools })
    }

    pub(crate) fn has_tools(&self) -> bool {
        !self.tools.is_empty()
    }

    pub(crate) fn tool(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.binary_search_by(|t| (*t.name).cmp(name)).ok().map(|i| &self.tools[i])
    }

    /// One page of tools from `cursor` on, and the cursor of the next page.
    pub(crate) fn tools_page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<(&[ToolEntry], Option<String>), ErrorObject> {
        page(&self.tools, |t| &t.name, cursor, page_size)
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.iter().map(|t| &t.tool.name)).finish()
    }
}

/// Pages through a name-sorted list. A cursor names the first item of its page, so it
/// stays meaningful when items before it come and go.
fn page<'a, T>(
    items: &'a [T],
    name: impl Fn(&T) -> &str,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(&'a [T], Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let first = decode_cursor(cursor).ok_or_else(|| {
                ErrorObject::invalid_params(format!(
                    "Invalid cursor `{cursor}`: pass a `nextCursor` this server returned"
                ))
            })?;
            items.partition_point(|item| name(item) < first.as_str())
        }
    };
    let end = start.saturating_add(page_size.max(1)).min(items.len());
    let next = items.get(end).map(|item| encode_cursor(name(item)));
    Ok((&items[start..end], next))
}

const CURSOR_PREFIX: &str = "c1.";

fn encode_cursor(name: &str) -> String {
    let mut out = String::with_capacity(CURSOR_PREFIX.len() + name.len() * 2);
    out.push_str(CURSOR_PREFIX);
    for b in name.bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn decode_cursor(cursor: &str) -> Option<String> {
    let hex = cursor.strip_prefix(CURSOR_PREFIX)?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("tool{i:02}")).collect()
    }

    #[test]
    fn pages_cover_every_item_once() {
        let items = names(7);
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let (page, next) = page(&items, |s| s, cursor.as_deref(), 3).unwrap();
            seen.extend(page.iter().cloned());
            match next {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, items);
    }

    #[test]
    fn bad_cursors_are_invalid_params() {
        let items = names(2);
        for bad in ["", "xyz", "c1.zz", "c1.abc", "c1.ff"] {
            let err = page(&items, |s| s, Some(bad), 3).unwrap_err();
            assert_eq!(err.code, -32602, "{bad}");
        }
    }

    #[test]
    fn cursors_round_trip() {
        assert_eq!(decode_cursor(&encode_cursor("é-x")).as_deref(), Some("é-x"));
    }
}
