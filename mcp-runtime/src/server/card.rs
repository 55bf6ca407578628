//! The Server Card (SEP-2127, the experimental extension `io.modelcontextprotocol/server-card`):
//! a static document that tells a client who a remote server is, where it is reached and which
//! revisions it speaks, before it connects. Everything in it is known when the server starts:
//! the name given to [`Server::server_card`](crate::Server::server_card), and the `serverInfo`
//! (version, title, description, website, icons); the HTTP transport adds its endpoint, and the
//! `Authorization` header when authorization is on.

use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::protocol::{Implementation, Revision};

/// The `$schema` every card names.
pub(crate) const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// The card of the server `info` under `name`, reached at `endpoint` (Streamable HTTP) when
/// one is given. Refused with a message saying what to change when the card could not pass
/// the card's schema: a `name` not of the form `namespace/name`, no description, a field too
/// long.
#[cfg_attr(not(any(feature = "http", feature = "stdio")), allow(dead_code))]
pub(crate) fn card(info: &Implementation, name: &str, endpoint: Option<&str>, authorization: bool) -> Result<Value> {
    check_name(name)?;
    let description = info.description.as_deref().ok_or_else(|| {
        Error::Usage(
            "the Server Card needs a description of the server: `Server::description(\"..\")` (1 to 100 characters)"
                .into(),
        )
    })?;
    check_length("the description (`Server::description`)", description, 1, 100)?;
    check_length("the version", &info.version, 0, 255)?;
    let mut card = json!({
        "$schema": SCHEMA,
        "name": name,
        "version": info.version,
        "description": description,
    });
    if let Some(title) = &info.title {
        check_length("the title (`Server::title`)", title, 1, 100)?;
        card["title"] = json!(title);
    }
    if let Some(url) = &info.website_url {
        card["websiteUrl"] = json!(url);
    }
    if let Some(icons) = &info.icons {
        card["icons"] = json!(icons);
    }
    if let Some(endpoint) = endpoint {
        let mut remote = json!({
            "type": "streamable-http",
            "url": endpoint,
            "supportedProtocolVersions": Revision::ALL.map(Revision::as_str),
        });
        if authorization {
            remote["headers"] = json!([{
                "name": "Authorization",
                "description": "An OAuth 2.1 access token from the authorization server the protected-resource metadata names.",
                "isRequired": true,
                "isSecret": true,
                "value": "Bearer {token}",
                "variables": {"token": {"description": "The access token.", "isRequired": true, "isSecret": true}},
            }]);
        }
        card["remotes"] = json!([remote]);
    }
    Ok(card)
}

impl crate::Server {
    /// The Server Card as `--card` prints it (pretty JSON).
    #[cfg(feature = "stdio")]
    pub(crate) fn server_card_for(&self, endpoint: Option<&str>, authorization: bool) -> Result<String> {
        let name = self.card_name.as_deref().ok_or_else(|| {
            Error::Usage("this server publishes no Server Card: `Server::server_card(\"namespace/name\")`".into())
        })?;
        let card = card(&self.info, name, endpoint, authorization)?;
        Ok(serde_json::to_string_pretty(&card).unwrap_or_default())
    }
}

/// `namespace/name`: letters, digits, `.` and `-` before the slash (a reverse domain), and
/// `_` too after it; 3 to 200 characters.
fn check_name(name: &str) -> Result<()> {
    let valid = name.split_once('/').is_some_and(|(namespace, rest)| {
        !namespace.is_empty()
            && !rest.is_empty()
            && namespace.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.".contains(&b))
            && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
    });
    if valid && (3..=200).contains(&name.len()) {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "`{name}` cannot name a Server Card: write `namespace/name`, the namespace a reverse domain you control \
         (`io.github.alice/gift-genius`, `com.example/weather`), 3 to 200 characters of letters, digits, `.`, `-` \
         (and `_` after the slash)"
    )))
}

fn check_length(what: &str, text: &str, min: usize, max: usize) -> Result<()> {
    let length = text.chars().count();
    if (min..=max).contains(&length) {
        return Ok(());
    }
    Err(Error::Usage(format!("the Server Card's {what} is {length} characters long; it must be {min} to {max}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> Implementation {
        Implementation { description: Some("Suggests gifts.".into()), ..Implementation::new("gift-genius", "1.2.0") }
    }

    #[test]
    fn a_card_says_who_where_and_which_revisions() {
        let card = card(&info(), "io.github.alice/gift-genius", Some("https://gifts.example.com/mcp"), true).unwrap();
        assert_eq!(card["$schema"], SCHEMA);
        assert_eq!(card["name"], "io.github.alice/gift-genius");
        assert_eq!(card["version"], "1.2.0");
        let remote = &card["remotes"][0];
        assert_eq!(remote["url"], "https://gifts.example.com/mcp");
        assert_eq!(remote["supportedProtocolVersions"].as_array().unwrap().len(), Revision::ALL.len());
        assert_eq!(remote["headers"][0]["name"], "Authorization");
        let open = super::card(&info(), "io.github.alice/gift-genius", None, false).unwrap();
        assert!(open.get("remotes").is_none());
    }

    #[test]
    fn what_the_schema_refuses_is_refused_at_start_saying_what_to_write() {
        let bad_name = card(&info(), "gift-genius", None, false).unwrap_err().to_string();
        assert!(bad_name.contains("namespace/name"), "{bad_name}");
        let nameless = Implementation::new("gift-genius", "1.2.0");
        let undescribed = card(&nameless, "io.github.alice/gift-genius", None, false).unwrap_err().to_string();
        assert!(undescribed.contains("Server::description"), "{undescribed}");
        let long = Implementation { description: Some("x".repeat(101)), ..nameless };
        let too_long = card(&long, "io.github.alice/gift-genius", None, false).unwrap_err().to_string();
        assert!(too_long.contains("101 characters"), "{too_long}");
    }
}
