//! What a layer sees of a request: its method, the item it targets, its params, the revision
//! and transport it came by, who sent it, and the context its handler will see.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::{Context, Identity, RequestExtras};
use crate::declare::scopes::Scopes;
use crate::protocol::{RequestId, Revision, member, string_value};
use crate::util::BoxFuture;

use super::visibility::{Item, Visibility};
use super::{BoxError, McpResponse};

/// What carried a request to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// Standard input and output (or any byte stream served the same way).
    Stdio,
    /// Streamable HTTP.
    Http,
    /// A channel in the same process (`Server::serve_channel`, the test client).
    Channel,
}

impl Transport {
    /// Its name: `stdio`, `http` or `channel`.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Channel => "channel",
        }
    }

    /// The name OpenTelemetry's `network.transport` uses: `pipe` for stdio and channels,
    /// `tcp` for HTTP.
    pub fn network_transport(self) -> &'static str {
        match self {
            Transport::Stdio | Transport::Channel => "pipe",
            Transport::Http => "tcp",
        }
    }
}

/// The item a request is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target<'a> {
    /// `tools/call`: the tool's name.
    Tool(&'a str),
    /// `resources/read`, `resources/subscribe`, `resources/unsubscribe`: the URI.
    Resource(&'a str),
    /// `prompts/get`: the prompt's name.
    Prompt(&'a str),
}

impl<'a> Target<'a> {
    /// The tool or prompt name, or the resource URI.
    pub fn name(self) -> &'a str {
        match self {
            Target::Tool(name) | Target::Resource(name) | Target::Prompt(name) => name,
        }
    }
}

/// Runs the request inside every layer, with what the layers left it.
pub(crate) type Proceed = Box<dyn FnOnce(Inward) -> BoxFuture<'static, Result<McpResponse, BoxError>> + Send>;

/// What the layers hand the method: the params as they left them, the filter of items they
/// set, and the trace the method's own spans belong to.
pub(crate) struct Inward {
    pub(crate) params: Option<Box<RawValue>>,
    pub(crate) visible: Option<Visibility>,
    #[cfg(feature = "telemetry")]
    pub(crate) trace: Option<opentelemetry::Context>,
}

/// One request on its way through the server's layers to its method.
///
/// A layer sees what the request is ([`method`](Self::method), [`target`](Self::target),
/// [`params`](Self::params)), how it came ([`revision`](Self::revision),
/// [`transport`](Self::transport), [`session_id`](Self::session_id)) and who sent it
/// ([`identity`](Self::identity), [`peer_addr`](Self::peer_addr)); it may change the params
/// before calling inward. Only requests for a method the server serves reach the layers:
/// malformed messages and unknown methods are answered before them.
pub struct McpRequest {
    pub(crate) method: &'static str,
    pub(crate) params: Option<Box<RawValue>>,
    pub(crate) transport: Transport,
    pub(crate) context: Context,
    pub(crate) extras: Option<Arc<RequestExtras>>,
    /// The target's name, read from the params once.
    target: Option<Box<str>>,
    pub(crate) proceed: Option<Proceed>,
    /// Which items the caller sees, when a layer said.
    pub(crate) visible: Option<Visibility>,
    /// The scopes its target item declares (set by the loop that sends it in).
    pub(crate) scopes: Scopes,
    /// The mount its target item came from (`Server::mount`), whose layers it passes too.
    pub(crate) mounted: Option<usize>,
    /// The server span the method's own spans are children of (feature `telemetry`).
    #[cfg(feature = "telemetry")]
    pub(crate) trace: Option<opentelemetry::Context>,
}

impl fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpRequest")
            .field("method", &self.method)
            .field("id", self.id())
            .field("target", &self.target())
            .field("revision", &self.revision())
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

impl McpRequest {
    pub(crate) fn new(
        method: &'static str,
        params: Option<Box<RawValue>>,
        transport: Transport,
        context: Context,
        extras: Option<Arc<RequestExtras>>,
        proceed: Proceed,
    ) -> Self {
        let target = target_of(method, params.as_deref());
        McpRequest {
            method,
            params,
            transport,
            context,
            extras,
            target,
            proceed: Some(proceed),
            visible: None,
            scopes: Scopes::default(),
            mounted: None,
            #[cfg(feature = "telemetry")]
            trace: None,
        }
    }

    /// The method, such as `tools/call`.
    pub fn method(&self) -> &'static str {
        self.method
    }

    /// The request's JSON-RPC id.
    pub fn id(&self) -> &RequestId {
        self.context.request_id()
    }

    /// The tool, resource or prompt the request is about, when its method names one.
    pub fn target(&self) -> Option<Target<'_>> {
        let name = self.target.as_deref()?;
        Some(match self.method {
            "tools/call" => Target::Tool(name),
            "prompts/get" => Target::Prompt(name),
            _ => Target::Resource(name),
        })
    }

    /// The params as they came (or as a layer before this one left them).
    pub fn params(&self) -> Option<&RawValue> {
        self.params.as_deref()
    }

    /// Replaces the params the method will read (`Value::Null`: none).
    pub fn set_params(&mut self, params: Value) {
        self.params = match params {
            Value::Null => None,
            params => RawValue::from_string(params.to_string()).ok(),
        };
        self.target = target_of(self.method, self.params.as_deref());
    }

    /// Shows the caller only the items `visible` accepts (see [`Item`]): lists leave the
    /// others out, and a call, read or get of one is answered as for an item that does not
    /// exist. Filters set by several layers all apply.
    ///
    /// ```
    /// use mcp_runtime::Server;
    /// use mcp_runtime::middleware::from_fn;
    ///
    /// // Only callers signed in as admins see the tools tagged `admin`.
    /// let server = Server::builder("gifts", "1.0.0").layer(from_fn(|mut request, next| async move {
    ///     let admin = request.identity().is_some_and(|who| who.claims().get("role").is_some_and(|r| r == "admin"));
    ///     if !admin {
    ///         request.filter_items(|item| !item.has_tag("admin"));
    ///     }
    ///     next.run(request).await
    /// }));
    /// # let _ = server;
    /// ```
    pub fn filter_items(&mut self, visible: impl Fn(&Item<'_>) -> bool + Send + Sync + 'static) {
        self.visible = Some(Visibility::both(self.visible.take(), visible));
    }

    /// The scopes the item it targets was declared with (`scopes("notes:write")`): empty for
    /// a request aimed at no item, or at one declared without scopes.
    pub fn required_scopes(&self) -> &[String] {
        self.scopes.as_slice()
    }

    /// The protocol revision the request is served under.
    pub fn revision(&self) -> Revision {
        self.context.revision()
    }

    /// Whether it is a 2026-07-28 request, served without a session.
    pub fn is_stateless(&self) -> bool {
        self.revision().supports(crate::protocol::Feature::Stateless)
    }

    /// What carried it.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// The HTTP session it belongs to (handshake revisions over HTTP).
    pub fn session_id(&self) -> Option<&str> {
        self.context.header("mcp-session-id")
    }

    /// Who sent it, as the HTTP transport's authentication said.
    pub fn identity(&self) -> Option<&Identity> {
        self.context.identity()
    }

    /// The address of the HTTP client (when the server's own listener accepted it).
    pub fn peer_addr(&self) -> Option<SocketAddr> {
        self.extras.as_ref().and_then(|extras| extras.peer)
    }

    /// An HTTP header of the request.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.context.header(name)
    }

    /// The context the request's handler will see: its identity, client, and the server's
    /// states. (Notifications to the client are sent from the handler, not from a layer.)
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Who the request counts against, for limits: its identity, else its session, else its
    /// client's address, else the connection (stdio, a channel).
    pub fn caller(&self) -> Caller {
        if let Some(identity) = self.identity() {
            return Caller::Identity(identity.subject().into());
        }
        if let Some(session) = self.session_id() {
            return Caller::Session(session.into());
        }
        match self.peer_addr() {
            Some(peer) => Caller::Address(peer.ip()),
            None => Caller::Connection(self.transport),
        }
    }
}

/// Who a request counts against (see [`McpRequest::caller`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Caller {
    /// The subject of its identity.
    Identity(Arc<str>),
    /// Its HTTP session.
    Session(Arc<str>),
    /// Its client's IP address.
    Address(std::net::IpAddr),
    /// The one client of a stdio or channel connection.
    Connection(Transport),
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Caller::Identity(subject) => write!(f, "subject {subject}"),
            Caller::Session(session) => write!(f, "session {session}"),
            Caller::Address(ip) => write!(f, "address {ip}"),
            Caller::Connection(transport) => write!(f, "the {} client", transport.as_str()),
        }
    }
}

/// The name or URI a method's params say it is about.
fn target_of(method: &str, params: Option<&RawValue>) -> Option<Box<str>> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    string_value(member(params?.get(), key)?).map(|name| Box::from(&*name))
}
