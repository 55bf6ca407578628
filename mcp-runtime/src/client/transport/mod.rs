//! What carries a client's messages: a server in memory, a spawned command's stdin and
//! stdout, Streamable HTTP.

pub(crate) mod http;
pub(crate) mod memory;
pub(crate) mod sse;
pub(crate) mod stdio;
