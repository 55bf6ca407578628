//! A POST's body before it is handed over: read within the body timeout and the message size
//! limit, and, when it is a batch, one this session may send.

use std::future::Future;
use std::task::Poll;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::admission::header_str;
use super::reject;
use super::sessions::App;
use crate::protocol::{ErrorObject, Feature, Revision, is_json_whitespace};

/// A batch is accepted only on a session whose revision has them (2025-03-26): none without
/// a session (2026-07-28 has no batches), none under a version header that names another
/// revision, and never an empty one. (A session whose client sends no version header is
/// checked by its loop, which knows the revision it negotiated.)
pub(super) fn check_batch(text: &str, session: Option<&str>, version: Option<&str>) -> Result<(), Box<Response>> {
    let refuse = |why: &str| Box::new(reject(StatusCode::BAD_REQUEST, None, ErrorObject::invalid_request(why)));
    let inside = text.trim_matches(is_json_whitespace);
    if inside
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .is_some_and(|rest| rest.trim_matches(is_json_whitespace).is_empty())
    {
        return Err(refuse("Invalid request: an empty batch"));
    }
    if session.is_none() {
        return Err(refuse(
            "Invalid request: a batch needs a 2025-03-26 session (2026-07-28 has no batches): send one message per POST",
        ));
    }
    if let Some(revision) = version.and_then(Revision::parse)
        && !revision.supports(Feature::Batching)
    {
        return Err(refuse(&format!(
            "Invalid request: revision {revision} has no batches (only 2025-03-26 has): send one message per POST"
        )));
    }
    Ok(())
}

/// The body, read within the body timeout and the message size limit: 413 past the limit
/// (before anything is read when `Content-Length` says so, so that a client that sent
/// `Expect: 100-continue` is not told to go on), 408 past the timeout.
pub(super) async fn read_body(app: &App, headers: &HeaderMap, body: Body) -> Result<Bytes, Box<Response>> {
    let max = app.core.config.max_message_size;
    let too_large = || {
        let error = ErrorObject::invalid_request(format!("The message is larger than the limit of {max} bytes"));
        Box::new(close_after(reject(StatusCode::PAYLOAD_TOO_LARGE, None, error)))
    };
    let declared = header_str(headers, header::CONTENT_LENGTH).and_then(|length| length.parse::<u64>().ok());
    if declared.is_some_and(|length| length > max as u64) {
        return Err(too_large());
    }
    let mut reading = std::pin::pin!(axum::body::to_bytes(body, max));
    // A body that came with its head (most do) is read without setting a timer.
    let read = match std::future::poll_fn(|cx| Poll::Ready(reading.as_mut().poll(cx))).await {
        Poll::Ready(read) => Ok(read),
        Poll::Pending => tokio::time::timeout(app.body_timeout, reading).await,
    };
    match read {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) if is_length_limit(&e) => Err(too_large()),
        Ok(Err(_)) => Err(Box::new(close_after(reject(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::parse_error("the body could not be read"),
        )))),
        Err(_) => {
            let error = ErrorObject::invalid_request(format!(
                "The body did not arrive within {} ms",
                app.body_timeout.as_millis()
            ));
            Err(Box::new(close_after(reject(StatusCode::REQUEST_TIMEOUT, None, error))))
        }
    }
}

/// Whether reading a body failed on the size limit.
fn is_length_limit(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = source {
        if error.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = error.source();
    }
    false
}

/// The response with `Connection: close`: what is left of the request on the connection is
/// not read.
fn close_after(mut response: Response) -> Response {
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
