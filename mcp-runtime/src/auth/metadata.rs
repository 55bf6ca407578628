//! The protected-resource metadata (RFC 9728), derived from what is configured and declared:
//! where it is served, and what it says.

use serde_json::{Value, json};

/// The well-known prefix of the metadata's path.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// A canonical resource URI taken apart: `scheme://authority` and the path (`""` for none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceUri<'a> {
    pub(crate) origin: &'a str,
    pub(crate) path: &'a str,
}

/// `uri` as a canonical resource URI (RFC 8707 §2: absolute, `http` or `https`, no fragment;
/// RFC 9728 §3.1: no query either), or why not.
pub(crate) fn parse_resource(uri: &str) -> Result<ResourceUri<'_>, String> {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))
        .ok_or_else(|| format!("the resource URI `{uri}` is not an http:// or https:// URL"))?;
    if uri.contains(['#', '?']) {
        return Err(format!("the resource URI `{uri}` may have neither a query nor a fragment"));
    }
    let authority_len = rest.find('/').unwrap_or(rest.len());
    if authority_len == 0 {
        return Err(format!("the resource URI `{uri}` names no host"));
    }
    let split = uri.len() - rest.len() + authority_len;
    let path = uri[split..].trim_end_matches('/');
    Ok(ResourceUri { origin: &uri[..split], path })
}

impl ResourceUri<'_> {
    /// The path the metadata is served at (the well-known prefix before the resource's path:
    /// `/mcp` → `/.well-known/oauth-protected-resource/mcp`).
    pub(crate) fn metadata_path(&self) -> String {
        format!("{WELL_KNOWN}{}", self.path)
    }

    /// The metadata's URL, as challenges name it.
    pub(crate) fn metadata_url(&self) -> String {
        format!("{}{}", self.origin, self.metadata_path())
    }
}

/// The metadata document: `resource`, `authorization_servers`, `scopes_supported` (what the
/// declarations and the server-wide minimum use), bearer tokens in the header only.
pub(crate) fn document(resource: &str, servers: &[String], scopes: &[String], name: Option<&str>) -> Value {
    let mut document = json!({
        "resource": resource,
        "authorization_servers": servers,
        "bearer_methods_supported": ["header"],
    });
    if !scopes.is_empty() {
        document["scopes_supported"] = json!(scopes);
    }
    if let Some(name) = name {
        document["resource_name"] = json!(name);
    }
    document
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_path_puts_the_well_known_prefix_before_the_resource_path() {
        let at = |uri| parse_resource(uri).map(|r| (r.metadata_url(), r.metadata_path()));
        assert_eq!(
            at("https://h.example/public/mcp").unwrap().0,
            "https://h.example/.well-known/oauth-protected-resource/public/mcp"
        );
        assert_eq!(at("http://127.0.0.1:3000/mcp").unwrap().1, "/.well-known/oauth-protected-resource/mcp");
        assert_eq!(at("https://h.example").unwrap().1, WELL_KNOWN);
        assert_eq!(at("https://h.example/").unwrap().1, WELL_KNOWN);
        assert!(at("ftp://h/mcp").is_err());
        assert!(at("https://h/mcp?x=1").is_err());
        assert!(at("https:///mcp").is_err());
    }

    #[test]
    fn the_document_lists_servers_scopes_and_header_bearers() {
        let doc = document("https://h/mcp", &["https://as".into()], &["a".into()], Some("Notes"));
        assert_eq!(doc["resource"], "https://h/mcp");
        assert_eq!(doc["authorization_servers"], json!(["https://as"]));
        assert_eq!(doc["scopes_supported"], json!(["a"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        assert_eq!(doc["resource_name"], "Notes");
        assert!(document("https://h/mcp", &[], &[], None).get("scopes_supported").is_none());
    }
}
