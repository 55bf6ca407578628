//! The scope check: a layer on the middleware seam, inside telemetry and outside the
//! application's own layers. A call, read or get of an item whose declared scopes the
//! caller's token lacks is refused before anything else runs (HTTP 403 with an
//! `insufficient_scope` challenge, the body a [`code::INSUFFICIENT_SCOPE`] error); lists leave
//! such items out unless [`Authorization::list_all_items`] said otherwise. Requests the HTTP
//! edge did not authorize (stdio, a channel, HTTP without a verifier) pass unchecked.
//!
//! [`code::INSUFFICIENT_SCOPE`]: crate::protocol::code::INSUFFICIENT_SCOPE
//! [`Authorization::list_all_items`]: super::Authorization::list_all_items

use super::challenge::{ChallengeInfo, Refusal, insufficient_scope};
use super::edge::step_up;
use crate::middleware::{BoxError, FromFnLayer, McpRequest, McpResponse, Next, from_fn};
use crate::util::BoxFuture;

/// The methods whose answers list items.
const LISTS: [&str; 4] = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"];

/// The check, as a function a layer is made of.
type Check = fn(McpRequest, Next) -> BoxFuture<'static, Result<McpResponse, BoxError>>;

/// The layer.
pub(crate) fn layer() -> FromFnLayer<Check> {
    let check: Check = |request, next| Box::pin(check(request, next));
    from_fn(check)
}

async fn check(mut request: McpRequest, next: Next) -> Result<McpResponse, BoxError> {
    let Some(authorized) = request.extras.as_ref().and_then(|extras| extras.authorized.clone()) else {
        return next.run(request).await;
    };
    let granted: Vec<String> = request.identity().map(|who| who.scopes().to_vec()).unwrap_or_default();
    let needed = request.required_scopes();
    if needed.iter().any(|scope| !granted.contains(scope)) {
        let refusal = Refusal::Insufficient { scope: step_up(needed, &granted, request.is_stateless()) };
        let info = ChallengeInfo { metadata_url: authorized.metadata_url.clone(), first_scopes: Vec::new() };
        let mut refused = McpResponse::error(insufficient_scope(needed)).with_http_status(403);
        if let Some(challenge) = refusal.challenge(&info) {
            refused = refused.with_http_header("www-authenticate", challenge);
        }
        return Ok(refused);
    }
    if !authorized.list_all && LISTS.contains(&request.method()) {
        request.filter_items(move |item| item.scopes().iter().all(|scope| granted.contains(scope)));
    }
    next.run(request).await
}
