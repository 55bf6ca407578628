//! What the transport knows of one incoming message, handed with it to the session.

use std::sync::Arc;

use crate::context::RequestExtras;
use crate::serve::reply::ReplyTo;

/// What the transport knows of one incoming message: where its answers go, what came with it,
/// and who sent it.
#[derive(Debug)]
pub(crate) struct Arrival {
    pub(crate) reply_to: ReplyTo,
    /// The HTTP request it came in (headers, identity).
    pub(crate) extras: Option<Arc<RequestExtras>>,
    pub(crate) via: Via,
}

/// Who handed a message to this connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Via {
    /// Its client.
    Client,
    /// Another instance serving the same HTTP session, which had no use for it: what it names
    /// is not sent on again.
    Instance,
}

impl From<ReplyTo> for Arrival {
    /// A client's message with nothing beside it.
    fn from(reply_to: ReplyTo) -> Self {
        Arrival { reply_to, extras: None, via: Via::Client }
    }
}
