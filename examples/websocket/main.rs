//! An MCP server over WebSocket, one JSON-RPC message per text frame: a transport of its own
//! on the runtime's boundary, `Server::serve_channel`. Each connection is one session, with
//! everything stdio has (both eras, the in-flight bound, cancellation, back-pressure).
//!
//! `cargo run --example websocket -- 127.0.0.1:3001`, then connect to `ws://127.0.0.1:3001`.

use std::error::Error;

use futures_util::{SinkExt, StreamExt};
use mcp_runtime::prelude::*;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// Adds two integers.
#[mcp_tool(read_only)]
async fn add(a: i64, b: i64) -> String {
    a.checked_add(b).map_or_else(|| "overflow".into(), |sum| sum.to_string())
}

/// Says hello, slowly, reporting progress.
#[mcp_tool]
async fn greet(ctx: Context, name: String) -> String {
    for step in 1..=3 {
        ctx.progress(f64::from(step), Some(3.0), None).await;
    }
    format!("Hello, {name}!")
}

/// Serves one WebSocket connection until either side closes it.
async fn serve(stream: TcpStream) -> Result<(), Box<dyn Error + Send + Sync>> {
    let socket = tokio_tungstenite::accept_async(stream).await?;
    let (mut to_client, mut from_client) = socket.split();
    let (to_server, incoming) = mpsc::channel::<Vec<u8>>(16);
    let (outgoing, mut from_server) = mpsc::channel::<Vec<u8>>(16);
    let server = Server::new("websocket-demo", env!("CARGO_PKG_VERSION"));
    let serving = tokio::spawn(server.serve_channel(incoming, outgoing));
    // Client → server: each text frame is a message; a closing frame ends the input.
    let reading = async move {
        while let Some(Ok(frame)) = from_client.next().await {
            match frame {
                Message::Text(text) if to_server.send(text.as_bytes().to_vec()).await.is_err() => break,
                Message::Close(_) => break,
                _ => {}
            }
        }
    };
    // Server → client: each message becomes a text frame (without its line ending).
    let writing = async move {
        while let Some(mut message) = from_server.recv().await {
            message.pop();
            let text = String::from_utf8(message).map_err(|e| e.to_string())?;
            to_client.send(Message::text(text)).await.map_err(|e| e.to_string())?;
        }
        to_client.close().await.map_err(|e| e.to_string())
    };
    let ((), written) = tokio::join!(reading, writing);
    serving.await??;
    Ok(written?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error + Send + Sync>> {
    // What `RUST_LOG` asks for (warnings and errors when unset), to standard error.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_env_filter(filter).init();
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:3001".into());
    let listener = TcpListener::bind(&addr).await?;
    eprintln!("serving MCP over WebSocket at ws://{}", listener.local_addr()?);
    loop {
        let (stream, peer) = listener.accept().await?;
        tokio::spawn(async move {
            if let Err(e) = serve(stream).await {
                eprintln!("connection from {peer} ended: {e}");
            }
        });
    }
}
