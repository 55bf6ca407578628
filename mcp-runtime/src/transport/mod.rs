//! Transports: how messages reach a connection's [`Session`](crate::serve::session::Session) and how
//! responses leave it.
//!
//! - [`connection`]: the loop every transport runs, over its input and an output queue.
//! - [`lines`]: newline-delimited JSON over any async byte stream (pipes, sockets, in-memory
//!   duplex streams for tests).
//! - [`stdio`]: the process's standard input and output, on threads of their own.

pub(crate) mod connection;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod lines;
#[cfg(feature = "stdio")]
pub(crate) mod stdio;
