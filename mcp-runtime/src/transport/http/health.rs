//! `/healthz` and `/readyz`, for load balancers and orchestrators: answered whatever the
//! `Host` (probes use the pod's address) and without credentials, saying nothing of sessions.
//!
//! `/healthz` is 200 while the process serves. `/readyz` is 200 when it can take requests,
//! and 503 while it drains on shutdown (the listener stays open meanwhile, so probes see it)
//! or while its session or event store cannot be reached. `/metrics` (feature `telemetry`)
//! is served beside them, behind the endpoint's `Host` and `Origin` checks, or on an address
//! of its own (`--metrics ADDR`).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::sync::watch;

use super::sessions::App;

/// How long `/readyz` waits for a store to answer before it says the store is unreachable.
const CHECK_TIMEOUT: Duration = Duration::from_secs(1);

/// How often the end of the drain is looked for.
const DRAIN_POLL: Duration = Duration::from_millis(20);

/// `GET /healthz`.
pub(super) async fn on_live() -> Response {
    probe_answer(StatusCode::OK, json!({"status": "ok"}))
}

/// `GET /readyz`.
pub(super) async fn on_ready(State(app): State<Arc<App>>) -> Response {
    if *app.stopping.borrow() {
        return probe_answer(StatusCode::SERVICE_UNAVAILABLE, json!({"status": "draining"}));
    }
    let checks = async {
        app.store.check().await.map_err(|e| format!("the session store: {e}"))?;
        app.events.check().await.map_err(|e| format!("the event store: {e}"))
    };
    let why = match tokio::time::timeout(CHECK_TIMEOUT, checks).await {
        Ok(Ok(())) => return probe_answer(StatusCode::OK, json!({"status": "ready"})),
        Ok(Err(why)) => why,
        Err(_) => format!("a store did not answer within {} s", CHECK_TIMEOUT.as_secs()),
    };
    tracing::warn!(reason = %why, "not ready: a store cannot be reached");
    probe_answer(StatusCode::SERVICE_UNAVAILABLE, json!({"status": "unavailable", "reason": why}))
}

fn probe_answer(status: StatusCode, body: serde_json::Value) -> Response {
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `GET /metrics` (feature `telemetry`): the server's metrics as Prometheus text, for the
/// hosts the endpoint serves (unlike the probes, it says something of the traffic).
#[cfg(feature = "telemetry")]
pub(super) async fn on_metrics(
    State(app): State<Arc<App>>,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
) -> Response {
    if let Err(refused) = super::admission::check_headers(&app, &uri, &headers) {
        return *refused;
    }
    match &app.core.telemetry {
        Some(telemetry) => metrics_text(telemetry),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `telemetry`'s metrics as the Prometheus text answer.
#[cfg(feature = "telemetry")]
fn metrics_text(telemetry: &crate::middleware::telemetry::Telemetry) -> Response {
    let mut response = (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        telemetry.prometheus_text(),
    )
        .into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Serves `telemetry`'s metrics at `http://ADDR/metrics` (`--metrics ADDR`), apart from the
/// endpoint, until the process ends: where only the scraper reaches (no `Host` or `Origin`
/// check, which a scraper naming the address would fail). Says where on standard error, as
/// `--http` does.
#[cfg(all(feature = "telemetry", feature = "stdio"))]
pub(crate) async fn serve_metrics_apart(
    addr: &str,
    telemetry: crate::middleware::telemetry::Telemetry,
) -> crate::error::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let router = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let telemetry = telemetry.clone();
            async move { metrics_text(&telemetry) }
        }),
    );
    eprintln!("serving the metrics at http://{local}/metrics");
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::error!(error = %e, "the metrics listener stopped");
        }
    });
    Ok(())
}

/// Whether every address `addr` names is a loopback one (`127.0.0.1:3000`, `localhost:3000`):
/// where the endpoint may serve the metrics beside it by default.
#[cfg(all(feature = "telemetry", feature = "stdio"))]
pub(crate) async fn listens_on_loopback(addr: &str) -> bool {
    match tokio::net::lookup_host(addr).await {
        Ok(addrs) => {
            let addrs: Vec<std::net::SocketAddr> = addrs.collect();
            !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback())
        }
        Err(_) => false,
    }
}

/// Waits, once `stop` was sent, until every session's loop has ended (each holds one of its
/// receivers; the endpoint holds one more), or `limit` passed.
pub(crate) async fn drained(stop: &watch::Sender<bool>, limit: Duration) {
    let waiting = async {
        while stop.receiver_count() > 1 {
            tokio::time::sleep(DRAIN_POLL).await;
        }
    };
    let _ = tokio::time::timeout(limit, waiting).await;
}

#[cfg(all(test, feature = "telemetry", feature = "stdio"))]
mod tests {
    /// Only an address that is loopback alone gets the metrics beside the endpoint by default.
    #[tokio::test]
    async fn the_metrics_go_beside_the_endpoint_only_on_loopback() {
        for (addr, loopback) in
            [("127.0.0.1:3000", true), ("[::1]:3000", true), ("localhost:3000", true), ("0.0.0.0:3000", false)]
        {
            assert_eq!(super::listens_on_loopback(addr).await, loopback, "{addr}");
        }
    }
}
