//! `--oauth`: the authorization-code flow in the user's browser, redirected back to a port
//! on the loopback interface that this command listens on (RFC 8252's loopback redirect).

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::UserAgent;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// How long the user has to authorize in the browser.
const PATIENCE: Duration = Duration::from_secs(300);

/// A redirect URI on a free loopback port, and the user agent that opens the browser there
/// and waits for the authorization server's redirect to it.
pub(crate) fn loopback() -> Result<(String, UserAgent), String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("--oauth: no loopback port: {e}"))?;
    listener.set_nonblocking(true).map_err(|e| format!("--oauth: {e}"))?;
    let port = listener.local_addr().map_err(|e| format!("--oauth: {e}"))?.port();
    let redirect_uri = format!("http://127.0.0.1:{port}/callback");
    let listener = Arc::new(std::sync::Mutex::new(Some(listener)));
    let user_agent: UserAgent = Arc::new(move |url: String| {
        let listener = listener.lock().unwrap_or_else(|e| e.into_inner()).take();
        Box::pin(async move {
            let listener = listener.ok_or("--oauth: the browser was already used once")?;
            let listener = TcpListener::from_std(listener).map_err(|e| format!("--oauth: {e}"))?;
            eprintln!("Authorize in your browser:\n  {url}");
            open_browser(&url);
            tokio::time::timeout(PATIENCE, redirected(&listener, port))
                .await
                .map_err(|_| format!("--oauth: no answer from the browser in {} s", PATIENCE.as_secs()))?
        })
    });
    Ok((redirect_uri, user_agent))
}

/// Waits for the browser's request to the redirect URI and returns it as a URL.
async fn redirected(listener: &TcpListener, port: u16) -> Result<String, String> {
    loop {
        let (mut stream, _) = listener.accept().await.map_err(|e| format!("--oauth: {e}"))?;
        let mut head = Vec::new();
        let mut buffer = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buffer[..n]),
            }
        }
        let head = String::from_utf8_lossy(&head);
        let target = head.lines().next().and_then(|line| line.split(' ').nth(1)).unwrap_or("");
        if !target.starts_with("/callback") {
            let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
            continue;
        }
        let page = "Authorized: you can close this tab and go back to the terminal.";
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
            page.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
        return Ok(format!("http://127.0.0.1:{port}{target}"));
    }
}

/// Opens `url` in the desktop's browser when there is one; the URL is printed either way.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}
