//! The floor of Streamable HTTP on hyper: a bare hyper handler on the framework's runtime that
//! answers each POST with what [`sum_raw::answer`] writes (a JSON body, 202 for a
//! notification), one `Mcp-Session-Id` for every `initialize`. No routing, no admission, no
//! sessions, no checks: what any server on hyper pays at the least per request.

use std::convert::Infallible;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return Ok(status(StatusCode::BAD_REQUEST)),
    };
    let mut out = Vec::new();
    let _ = sum_raw::answer(&String::from_utf8_lossy(&body), &mut out);
    if out.is_empty() {
        return Ok(status(StatusCode::ACCEPTED));
    }
    out.pop();
    let mut response = Response::new(Full::new(Bytes::from(out)));
    let headers = response.headers_mut();
    headers.insert("content-type", "application/json".parse().expect("a header value"));
    headers.insert("mcp-session-id", "bench".parse().expect("a header value"));
    Ok(response)
}

fn status(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let addr = match args.as_slice() {
        [_, flag, addr] if flag == "--http" => addr.clone(),
        _ => {
            eprintln!("usage: sum-raw-http --http ADDR");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&addr).await?;
        loop {
            let (stream, _) = listener.accept().await?;
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(answer);
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}
