//! How a client and a server agree on a revision: `initialize` and
//! `notifications/initialized` (the handshake era), `server/discover` (2026-07-28), or the
//! second falling back to the first ([`Era::Auto`]).

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use super::connection::{Connection, Sending};
use super::error::ClientError;
use super::transport::http::{http_of, listen};
use crate::protocol::{Feature, Implementation, Revision, ServerCapabilities, code};

/// How long [`Era::Auto`] waits for an answer to `server/discover` before trying
/// `initialize`: a server of the handshake era may leave it unanswered.
const DISCOVERY_PATIENCE: Duration = Duration::from_secs(10);

/// Which lifecycle a client starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Era {
    /// `server/discover` first; `initialize` when the server does not speak 2026-07-28.
    #[default]
    Auto,
    /// `initialize`, then `notifications/initialized` (2024-11-05 … 2025-11-25).
    Handshake,
    /// 2026-07-28: `server/discover`, then each request carries its own `_meta`.
    Stateless,
}

/// What the client learned connecting: the revision in use and what the server declared.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Negotiation {
    /// The revision both speak.
    pub revision: Revision,
    /// Who the server is (from `initialize`, or the `_meta` of 2026-07-28's
    /// `server/discover`, when the server says).
    pub server_info: Option<Implementation>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// The server's instructions for the model, if any.
    pub instructions: Option<String>,
    /// The revisions the server speaks, when it said (2026-07-28).
    pub supported_versions: Vec<String>,
    /// How the agreement was reached, request by request (what `mcp inspect` shows).
    pub steps: Vec<Step>,
}

/// One request of the negotiation: what was asked, what came back, how long it took.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Step {
    /// `server/discover` or `initialize`.
    pub method: &'static str,
    /// The revision asked.
    pub asked: Revision,
    /// The revision answered, or why there was none (the error, the refusal).
    pub outcome: Result<Revision, String>,
    /// From sending the request to reading its answer.
    pub took: Duration,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeAnswer {
    protocol_version: String,
    #[serde(default)]
    capabilities: ServerCapabilities,
    server_info: Option<Implementation>,
    #[serde(default)]
    instructions: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DiscoverAnswer {
    #[serde(default)]
    supported_versions: Vec<String>,
    /// Where a 2026-07-28 result names its server.
    #[serde(rename = "_meta", default)]
    meta: serde_json::Map<String, Value>,
    #[serde(default)]
    capabilities: ServerCapabilities,
    #[serde(default)]
    instructions: Option<String>,
}

/// Who the client is and what it offers, as both eras send it.
pub(crate) struct Introduction<'a> {
    pub(crate) info: &'a Implementation,
    /// `Sync`, so that connecting is a `Send` future (one a task may run).
    pub(crate) capabilities: &'a (dyn Fn(Revision) -> Value + Sync),
}

/// Agrees on a revision with the server at the other end of `connection`.
pub(crate) async fn negotiate(
    connection: &Arc<Connection>,
    era: Era,
    revision: Option<Revision>,
    me: &Introduction<'_>,
) -> Result<Negotiation, ClientError> {
    let handshake = revision.unwrap_or(Revision::LATEST_HANDSHAKE);
    let mut steps = Vec::new();
    let agreed = match era {
        Era::Handshake => step(&mut steps, "initialize", handshake, initialize(connection, handshake, me)).await,
        Era::Stateless => step(&mut steps, "server/discover", Revision::LATEST, discover(connection, me, None)).await,
        Era::Auto => {
            let discovered = discover(connection, me, Some(DISCOVERY_PATIENCE));
            match step(&mut steps, "server/discover", Revision::LATEST, discovered).await {
                Ok(negotiation) => Ok(negotiation),
                Err(ClientError::Closed(why)) => Err(ClientError::Closed(why)),
                // Not a 2026-07-28 server (an error, a refusal over HTTP, no answer, no
                // 2026-07-28 among its versions): the handshake.
                Err(refused) => {
                    tracing::debug!("server/discover: {refused}; falling back to initialize");
                    if let Some(http) = http_of(connection) {
                        http.forget_version();
                    }
                    step(&mut steps, "initialize", handshake, initialize(connection, handshake, me)).await
                }
            }
        }
    };
    agreed.map(|negotiation| Negotiation { steps, ..negotiation })
}

/// Runs one request of the negotiation, noting it in `steps`.
async fn step(
    steps: &mut Vec<Step>,
    method: &'static str,
    asked: Revision,
    request: impl Future<Output = Result<Negotiation, ClientError>>,
) -> Result<Negotiation, ClientError> {
    let started = Instant::now();
    let agreed = request.await;
    let outcome = match &agreed {
        Ok(negotiation) => Ok(negotiation.revision),
        Err(e) => Err(e.to_string()),
    };
    steps.push(Step { method, asked, outcome, took: started.elapsed() });
    agreed
}

async fn initialize(
    connection: &Arc<Connection>,
    asked: Revision,
    me: &Introduction<'_>,
) -> Result<Negotiation, ClientError> {
    let params = json!({
        "protocolVersion": asked.as_str(),
        "capabilities": (me.capabilities)(asked),
        "clientInfo": me.info.for_revision(asked),
    });
    let raw = connection.request("initialize", params, Sending::default()).await?;
    let answer: InitializeAnswer = serde_json::from_str(raw.get()).map_err(|e| ClientError::shape("initialize", e))?;
    // Never talk past a version mismatch: a revision this client does not speak ends here.
    let revision =
        Revision::parse(&answer.protocol_version).filter(|r| r.supports(Feature::Handshake)).ok_or_else(|| {
            ClientError::VersionMismatch { asked: asked.as_str().to_owned(), answered: answer.protocol_version.clone() }
        })?;
    if let Some(http) = http_of(connection) {
        http.negotiated(revision);
    }
    connection.notify("notifications/initialized", json!({})).await?;
    if http_of(connection).is_some() {
        listen(connection).await;
    }
    Ok(Negotiation {
        revision,
        server_info: answer.server_info,
        capabilities: answer.capabilities,
        instructions: answer.instructions,
        supported_versions: Vec::new(),
        steps: Vec::new(),
    })
}

/// `server/discover` with 2026-07-28's `_meta`: the server must list 2026-07-28.
async fn discover(
    connection: &Arc<Connection>,
    me: &Introduction<'_>,
    patience: Option<Duration>,
) -> Result<Negotiation, ClientError> {
    let revision = Revision::V2026_07_28;
    if let Some(http) = http_of(connection) {
        http.negotiated(revision);
    }
    let params = json!({"_meta": meta(revision, me)});
    let sending = Sending { timeout: patience, cancel_by_closing: http_of(connection).is_some(), ..Sending::default() };
    let raw = match connection.request("server/discover", params.clone(), sending.clone()).await {
        Err(ClientError::Rpc { error, .. }) if error.code == code::UNSUPPORTED_PROTOCOL_VERSION => {
            // The server names the revisions it speaks: asked again when 2026-07-28 is one of
            // them (what it refused was something else of the request), never talked past.
            let supported: Vec<String> = error
                .data
                .as_ref()
                .and_then(|data| data.get("supported"))
                .and_then(|s| serde_json::from_value(s.clone()).ok())
                .unwrap_or_default();
            if !supported.iter().any(|v| v == revision.as_str()) {
                return Err(ClientError::VersionMismatch {
                    asked: revision.as_str().to_owned(),
                    answered: supported.join(", "),
                });
            }
            connection.request("server/discover", params, sending).await?
        }
        other => other?,
    };
    let answer: DiscoverAnswer =
        serde_json::from_str(raw.get()).map_err(|e| ClientError::shape("server/discover", e))?;
    if !answer.supported_versions.iter().any(|v| v == revision.as_str()) {
        return Err(ClientError::VersionMismatch {
            asked: revision.as_str().to_owned(),
            answered: answer.supported_versions.join(", "),
        });
    }
    let server_info =
        answer.meta.get("io.modelcontextprotocol/serverInfo").and_then(|v| serde_json::from_value(v.clone()).ok());
    Ok(Negotiation {
        revision,
        server_info,
        capabilities: answer.capabilities,
        instructions: answer.instructions,
        supported_versions: answer.supported_versions,
        steps: Vec::new(),
    })
}

/// Where a 2026-07-28 request's `_meta` carries the log level the client asked for.
pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// The `_meta` every 2026-07-28 request carries (the log level aside).
pub(crate) fn meta(revision: Revision, me: &Introduction<'_>) -> serde_json::Map<String, Value> {
    let mut meta = serde_json::Map::new();
    meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!(revision.as_str()));
    meta.insert("io.modelcontextprotocol/clientCapabilities".into(), (me.capabilities)(revision));
    meta.insert("io.modelcontextprotocol/clientInfo".into(), json!(me.info));
    meta
}
