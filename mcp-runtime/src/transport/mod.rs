//! Transports: how messages reach a [`Session`](crate::session::Session) and how responses
//! leave it.
//!
//! - [`lines`]: newline-delimited JSON over any byte stream (stdio, pipes, in-memory duplex
//!   streams for tests), with the in-flight bound and the message-size limit.
//! - stdio: [`Server::serve_stdio`](crate::Server::serve_stdio), `lines` over the process's
//!   standard input and output.

pub(crate) mod lines;
