//! A server in memory: the client and the server exchange messages over two channels, the
//! server running on the caller's runtime.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::Server;
use crate::client::connection::{Connection, Link, Outbox};
use crate::client::handlers::Handlers;

/// How many messages wait in each direction.
const CAPACITY: usize = 64;

/// Starts `server` and connects to it: the connection, and the server's task (its result
/// when the client's side closes). The server's own error when it cannot start.
pub(crate) fn connect(
    server: Server,
    handlers: Handlers,
) -> crate::Result<(Arc<Connection>, JoinHandle<crate::Result<()>>)> {
    // Built here rather than in the task, so that a declaration error (a missing state, a
    // duplicate name) is what connecting returns.
    let (core, shutdown) = server.start()?;
    let (to_server, incoming) = mpsc::channel::<Vec<u8>>(CAPACITY);
    let (outgoing, mut from_server) = mpsc::channel::<Vec<u8>>(CAPACITY);
    let serving = tokio::spawn(crate::transport::connection::serve_messages(core, shutdown, incoming, outgoing));
    let connection = Connection::new(Link::Messages(Outbox::new(to_server)), handlers);
    // Weak: the connection (and with it the server's input) closes when the client drops it.
    let reader = Arc::downgrade(&connection);
    tokio::spawn(async move {
        while let Some(bytes) = from_server.recv().await {
            let Some(connection) = reader.upgrade() else { return };
            match std::str::from_utf8(&bytes) {
                Ok(text) => connection.receive(text.trim_end()),
                Err(_) => tracing::warn!("the server sent a message that is not UTF-8"),
            }
        }
        if let Some(connection) = reader.upgrade() {
            connection.end("the server closed the connection".into());
        }
    });
    Ok((connection, serving))
}
