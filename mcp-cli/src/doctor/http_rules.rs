//! The Streamable HTTP transport's rules a client can see broken: the `Origin` check, what a
//! request that accepts only JSON gets, the session's 404 and 400, the version header's 400,
//! and (2026-07-28) the routing headers checked against the body.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::checks::{self, Finding, Severity};
use super::wire::Wire;
use super::{Doctor, initialize_params, meta};
use crate::connect::Failure;
use mcp_runtime::protocol::Revision;

/// An origin no server allows: a web page's, as in a DNS-rebinding attack.
const FOREIGN_ORIGIN: &str = "http://dns-rebinding.mcp-doctor.invalid";

/// Examines the transport with the newest handshake revision the server completed
/// (`handshake`) and, when it speaks it, 2026-07-28.
pub(super) async fn examine(
    doctor: &Doctor,
    handshake: Option<String>,
    stateless: bool,
) -> Result<Vec<Finding>, Failure> {
    let mut found = Vec::new();
    if let Some(revision) = &handshake {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params(revision)});
        found.extend(origin(doctor, &body, Some(revision), false).await?);
        found.extend(accept(doctor, &body, Some(revision), false).await?);
        found.extend(session(doctor, revision).await?);
    }
    if stateless {
        let latest = Revision::LATEST.as_str();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta(latest)}});
        if handshake.is_none() {
            found.extend(origin(doctor, &body, Some(latest), true).await?);
            found.extend(accept(doctor, &body, Some(latest), true).await?);
        }
        found.extend(header_mismatch(doctor).await?);
    }
    Ok(found)
}

/// POSTs `body` with the connection's headers changed by `change`, returning the status, the
/// content type and the messages of the answer.
async fn post(
    wire: &mut Wire,
    body: &Value,
    change: impl FnOnce(&mut HeaderMap),
    patience: std::time::Duration,
) -> Result<(u16, String, Vec<Value>), String> {
    let Some(http) = wire.http() else { return Err("not HTTP".to_owned()) };
    let mut headers = http.request_headers(body);
    change(&mut headers);
    match http.post_with(body.to_string(), headers, patience).await {
        Ok((exchange, messages)) => {
            let content_type = exchange.header("content-type").unwrap_or("").to_owned();
            Ok((exchange.status, content_type, messages))
        }
        Err(silence) => Err(silence.to_string()),
    }
}

fn set(headers: &mut HeaderMap, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(HeaderName::from_static(name), value);
    }
}

fn stateless_wire(doctor: &Doctor, stateless: bool) -> Result<Wire, Failure> {
    let mut wire = doctor.open()?;
    if stateless && let Some(http) = wire.http() {
        http.stateless = true;
        http.version = Some(Revision::LATEST.as_str().to_owned());
    }
    Ok(wire)
}

/// A request from a foreign `Origin` must get 403.
async fn origin(
    doctor: &Doctor,
    body: &Value,
    revision: Option<&str>,
    stateless: bool,
) -> Result<Vec<Finding>, Failure> {
    let mut wire = stateless_wire(doctor, stateless)?;
    let answer = post(&mut wire, body, |h| set(h, "origin", FOREIGN_ORIGIN), doctor.patience).await;
    wire.close().await;
    Ok(match answer {
        Ok((status, ..)) if (200..300).contains(&status) => vec![checks::HTTP_ORIGIN.found(
            revision,
            format!("a request from `Origin: {FOREIGN_ORIGIN}` was served (HTTP {status}), not refused with 403"),
        )],
        _ => Vec::new(),
    })
}

/// A request that accepts only JSON must not get an event stream.
async fn accept(
    doctor: &Doctor,
    body: &Value,
    revision: Option<&str>,
    stateless: bool,
) -> Result<Vec<Finding>, Failure> {
    let mut wire = stateless_wire(doctor, stateless)?;
    let answer = post(&mut wire, body, |h| set(h, "accept", "application/json"), doctor.patience).await;
    wire.close().await;
    Ok(match answer {
        Ok((status, content_type, _)) if content_type.starts_with("text/event-stream") => {
            vec![checks::HTTP_ACCEPT.found(
                revision,
                format!("a request with `Accept: application/json` was answered with an event stream (HTTP {status})"),
            )]
        }
        _ => Vec::new(),
    })
}

/// A made-up session id must get 404, a missing one 400 (a SHOULD: a warning); a version
/// header naming an unknown version must get 400 (2025-06-18 on).
async fn session(doctor: &Doctor, revision: &str) -> Result<Vec<Finding>, Failure> {
    let mut found = Vec::new();
    let mut wire = doctor.open()?;
    let Ok(answer) = wire.request("initialize", initialize_params(revision)).await else {
        wire.close().await;
        return Ok(found);
    };
    let session = answer.http.as_ref().and_then(|h| h.header("mcp-session-id")).map(str::to_owned);
    if let Some(http) = wire.http() {
        http.session = session.clone();
        http.version = Some(revision.to_owned());
    }
    let _ = wire.notify("notifications/initialized", json!({})).await;
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {}});
    let revision_named = Some(revision);
    if session.is_some() {
        let unknown =
            post(&mut wire, &ping, |h| set(h, "mcp-session-id", "mcp-doctor-unknown-session"), doctor.patience).await;
        if let Ok((status, ..)) = unknown
            && status != 404
        {
            found.push(checks::HTTP_SESSION.found(
                revision_named,
                format!("a request with an unknown `Mcp-Session-Id` was answered with HTTP {status}, not 404"),
            ));
        }
        let missing = post(
            &mut wire,
            &ping,
            |h| {
                h.remove("mcp-session-id");
            },
            doctor.patience,
        )
        .await;
        if let Ok((status, ..)) = missing
            && (200..300).contains(&status)
        {
            found.push(checks::HTTP_SESSION.found_as(
                Severity::Warning,
                revision_named,
                format!("a request without the `Mcp-Session-Id` the server gave was served (HTTP {status}), not refused with 400"),
            ));
        }
    }
    if revision >= Revision::V2025_06_18.as_str() {
        let wrong = post(&mut wire, &ping, |h| set(h, "mcp-protocol-version", "1999-01-01"), doctor.patience).await;
        if let Ok((status, ..)) = wrong
            && status != 400
        {
            found.push(checks::HTTP_PROTOCOL_VERSION.found(
                revision_named,
                format!("a request with `MCP-Protocol-Version: 1999-01-01` was answered with HTTP {status}, not 400"),
            ));
        }
    }
    wire.close().await;
    Ok(found)
}

/// 2026-07-28: `Mcp-Method` must match the body's method (400 and -32020).
async fn header_mismatch(doctor: &Doctor) -> Result<Vec<Finding>, Failure> {
    let latest = Revision::LATEST.as_str();
    let mut wire = stateless_wire(doctor, true)?;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(latest)}});
    let answer = post(&mut wire, &body, |h| set(h, "mcp-method", "prompts/list"), doctor.patience).await;
    wire.close().await;
    let Ok((status, _, messages)) = answer else { return Ok(Vec::new()) };
    let code = messages.first().map(|m| m["error"]["code"].clone()).unwrap_or(Value::Null);
    if status == 400 && code == -32020 {
        return Ok(Vec::new());
    }
    Ok(vec![checks::HTTP_HEADER_MISMATCH.found(
        Some(latest),
        format!(
            "`tools/list` sent with `Mcp-Method: prompts/list` was answered with HTTP {status} and error code {}, not 400 and -32020",
            super::examine::shown(&code)
        ),
    )])
}
