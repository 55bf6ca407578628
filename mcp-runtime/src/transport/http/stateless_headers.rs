//! The headers a 2026-07-28 request carries beside its body: `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name` and a tool's `Mcp-Param-*`, each matching what the body says.

use std::borrow::Cow;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::value::RawValue;

use super::admission::header_str;
use super::sessions::App;
use super::{METHOD_HEADER, NAME_HEADER, VERSION_HEADER, reject};
use crate::protocol::{ErrorObject, RequestId, code, member, members, mentions, string_value};
use crate::serve::routes::Named;

/// The `_meta` revision of a 2026-07-28 request, and its `name` or `uri`: each `None` when
/// absent or not a string.
#[derive(Default)]
pub(super) struct ParamsHead<'a> {
    /// The text of `_meta`, when it names a revision (read once, here).
    pub(super) meta: Option<&'a str>,
    pub(super) version: Option<Cow<'a, str>>,
    pub(super) name: Option<Cow<'a, str>>,
    pub(super) uri: Option<Cow<'a, str>>,
    /// The task a `tasks/*` request names.
    pub(super) task_id: Option<Cow<'a, str>>,
    /// The text of `arguments`, read only for a tool whose arguments are mirrored in headers.
    pub(super) arguments: Option<&'a str>,
}

impl<'a> ParamsHead<'a> {
    /// Reads the params of a message whose head parsed (valid JSON); without a protocol
    /// version in `_meta`, nothing else is read.
    pub(super) fn read(params: &'a RawValue) -> Self {
        let params = params.get();
        if !mentions!(params, "io.modelcontextprotocol/protocolVersion") {
            return ParamsHead::default();
        }
        let [meta, name, uri, task_id, arguments] = members(params, ["_meta", "name", "uri", "taskId", "arguments"]);
        let version =
            meta.and_then(|meta| member(meta, "io.modelcontextprotocol/protocolVersion")).and_then(string_value);
        ParamsHead {
            meta: version.is_some().then_some(meta).flatten(),
            version,
            name: name.and_then(string_value),
            uri: uri.and_then(string_value),
            task_id: task_id.and_then(string_value),
            arguments,
        }
    }
}

/// The 2026-07-28 header rules: a request carries `Mcp-Method` (and, for the methods that name
/// something, `Mcp-Name`: its route's `named` column) matching its body;
/// `MCP-Protocol-Version`, when sent, matches its `_meta` (400 with -32020 otherwise).
pub(super) fn check_stateless_headers(
    headers: &HeaderMap,
    method: Option<&str>,
    named: Named,
    params: &ParamsHead<'_>,
    id: Option<&RequestId>,
) -> Result<(), Box<Response>> {
    let version = params.version.as_deref();
    let mismatch = |what: &str| {
        let message = format!("Header mismatch: `{what}` does not match the body");
        Box::new(reject(StatusCode::BAD_REQUEST, id, ErrorObject::new(code::HEADER_MISMATCH, message)))
    };
    if let (Some(sent), Some(version)) = (header_str(headers, VERSION_HEADER), version)
        && sent != version
    {
        return Err(mismatch("MCP-Protocol-Version"));
    }
    let Some(method) = method else { return Ok(()) };
    if header_str(headers, METHOD_HEADER) != Some(method) {
        return Err(mismatch("Mcp-Method"));
    }
    let named = match named {
        Named::Name => params.name.as_deref(),
        Named::Uri => params.uri.as_deref(),
        Named::TaskId => params.task_id.as_deref(),
        Named::Nothing => return Ok(()),
    };
    if header_str(headers, NAME_HEADER).map(decode_header_value).as_deref() != named {
        return Err(mismatch("Mcp-Name"));
    }
    Ok(())
}

/// The `Mcp-Param-*` headers of a tool's mirrored arguments must be sent and match the body.
pub(super) fn check_param_headers(
    app: &App,
    headers: &HeaderMap,
    params: &ParamsHead<'_>,
    id: Option<&RequestId>,
) -> Result<(), Box<Response>> {
    let Some(name) = &params.name else { return Ok(()) };
    let registry = app.core.registry();
    let Some(tool) = registry.tools.get(name.as_ref()).filter(|tool| !tool.header_params.is_empty()) else {
        return Ok(());
    };
    let arguments: Option<serde_json::Map<String, serde_json::Value>> =
        params.arguments.and_then(|text| serde_json::from_str(text).ok());
    for (argument, header) in &tool.header_params {
        let sent = header_str(headers, format!("mcp-param-{header}")).map(decode_header_value);
        let value = arguments.as_ref().and_then(|arguments| arguments.get(argument));
        let expected = value.map(|v| match v {
            serde_json::Value::String(text) => Cow::Borrowed(text.as_str()),
            other => Cow::Owned(other.to_string()),
        });
        if sent != expected {
            let message = format!("Header mismatch: `Mcp-Param-{header}` does not match the argument `{argument}`");
            return Err(Box::new(reject(
                StatusCode::BAD_REQUEST,
                id,
                ErrorObject::new(code::HEADER_MISMATCH, message),
            )));
        }
    }
    Ok(())
}

/// A header value as 2026-07-28 writes values that are not plain ASCII:
/// `=?base64?<base64 of UTF-8>?=`.
pub(super) fn decode_header_value(value: &str) -> Cow<'_, str> {
    use base64::Engine as _;
    value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
        .and_then(|encoded| base64::engine::general_purpose::STANDARD.decode(encoded).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .map_or(Cow::Borrowed(value), Cow::Owned)
}
