//! One request on its way to its method: what it is, the context its handler sees, and what
//! a request's `_meta` says (its 2026-07-28 view, progress token and log level).
//!
//! Handshake-era requests arrive with the connection's [`Negotiated`] view and 2026-07-28
//! requests with one built from their own `_meta`; from there both take the same path, so
//! tools, resources and prompts are written once.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::context::asking::PendingRequests;
use crate::context::input_round::{InputRound, Interrupt};
use crate::context::outlet::{Outgoing, Outlet};
use crate::context::request_state::LazyState;
use crate::context::slot::SlotLease;
use crate::context::state::States;
use crate::context::task_link::TaskAsker;
use crate::context::{
    Asker, CancelToken, ClientLink, Context, Identity, LogLimiter, LogThreshold, Negotiated, RequestExtras,
    RequestParts,
};
use crate::declare::item::ItemParts;
use crate::error::ItemKind;
use crate::middleware::{Item, Visibility};
use crate::protocol::{CachePolicy, CacheScope, Cacheable};
use crate::protocol::{ErrorObject, Feature, Implementation, LogLevel, RequestId, Revision, code, member, mentions};
use crate::serve::reply::{InputRequired, ReplyTo, WireResult, result_line};
use crate::server::core::ServerCore;

/// Whether and how a method's results may be cached (2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caching {
    /// Not at all.
    No,
    /// As the server configures this kind of result (`Server::cache`).
    Configured(Cacheable),
    /// As the resource read declares.
    PerResource,
}

/// One request on its way to its method: built once by the session, handed to the method
/// directly or through the executor, which links it to the connection when it starts it.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub(crate) core: Arc<ServerCore>,
    /// Its session's states, when the session has instances of its own (else the server's).
    pub(crate) session_states: Option<Arc<States>>,
    pub(crate) negotiated: Arc<Negotiated>,
    pub(crate) id: RequestId,
    pub(crate) method: &'static str,
    /// What its results say of caching (its route's column).
    pub(crate) caching: Caching,
    /// Its handler may ask the client (its route's column).
    pub(crate) may_ask: bool,
    pub(crate) params: Option<Cow<'a, RawValue>>,
    pub(crate) meta: RequestMeta,
    /// What the transport knows of the request (HTTP headers, identity).
    pub(crate) extras: Option<Arc<RequestExtras>>,
    /// Where its answer goes (and, on a stream of its own, everything it sends before).
    pub(crate) reply_to: ReplyTo,
    /// What a handler reaches its client through, set by the executor when the request starts.
    pub(crate) link: Option<CallLink>,
    /// Which items the caller sees, when a layer said (`None`: all of them).
    pub(crate) visible: Option<Visibility>,
    /// The server span its handler's spans are children of (feature `telemetry`).
    #[cfg(feature = "telemetry")]
    pub(crate) trace: Option<opentelemetry::Context>,
}

/// What a request running user code may use of its connection.
#[derive(Debug)]
pub(crate) struct CallLink {
    /// The connection's output, for notifications and the server's questions.
    pub(crate) out: Outlet,
    /// The connection's budget of log messages.
    pub(crate) limiter: Arc<LogLimiter>,
    /// The request's in-flight slot.
    pub(crate) lease: Arc<SlotLease>,
    /// The server's questions waiting for answers (handshake revisions).
    pub(crate) pending: Option<Arc<PendingRequests>>,
    /// Cancelled when the request is (by the client, its time limit, or the connection's end).
    pub(crate) cancel: CancelToken,
}

/// How many questions ahead of the known answers a retry may answer.
const MAX_QUESTIONS: usize = 64;

impl Request<'_> {
    /// The same request, owning its params: to wait for a slot after the message is gone.
    pub(crate) fn into_owned(self) -> Request<'static> {
        let params = self.params.map(|params| Cow::Owned(params.into_owned()));
        Request { params, ..self }
    }

    /// Whether the caller sees the item `name` of `kind` (its tags and scopes in `parts`).
    pub(crate) fn shows(&self, kind: ItemKind, name: &str, parts: &ItemParts) -> bool {
        self.visible.as_ref().is_none_or(|visible| {
            visible.shows(&Item { kind, name, tags: parts.tags.as_slice(), scopes: parts.scopes.as_slice() })
        })
    }

    /// The caching policy of a list: the configured one, private when a layer filtered it.
    pub(crate) fn list_cache(&self) -> Option<CachePolicy> {
        let configured = self.configured_cache()?;
        Some(match self.visible {
            None => configured,
            Some(_) => CachePolicy::new(std::time::Duration::from_millis(configured.ttl_ms()), CacheScope::Private),
        })
    }

    /// The params as they came.
    pub(crate) fn raw_params(&self) -> Option<&RawValue> {
        self.params.as_deref()
    }

    /// The policy the server configured for this kind of result, when its route has one.
    pub(crate) fn configured_cache(&self) -> Option<CachePolicy> {
        match self.caching {
            Caching::Configured(kind) => Some(self.core.config.cache.get(kind)),
            Caching::No | Caching::PerResource => None,
        }
    }

    /// The states the handler of `item` sees: its session's (`Server::instance_per_session`),
    /// its mounted server's of those when it was mounted; for no item, the server's own.
    pub(crate) fn states(&self, item: Option<&ItemParts>) -> &Arc<States> {
        let states = self.session_states.as_ref().unwrap_or(&self.core.states);
        states.seen_by(item.and_then(|item| item.mounted))
    }

    pub(crate) fn revision(&self) -> Revision {
        self.negotiated.revision
    }

    /// The context the handler of `item` (its module path, its states), or of none, sees.
    /// `Err`: the retry of an input-required result brought a `requestState` that does not
    /// hold (altered, expired, another request's).
    pub(crate) fn context(&self, item: Option<&ItemParts>) -> Result<Context, ErrorObject> {
        let origin = item.and_then(|item| item.origin);
        let asker = match &self.link {
            None => None,
            Some(_) if self.revision().supports(Feature::Stateless) => match self.may_ask {
                true => Some(Asker::Round(Arc::new(self.input_round()?))),
                false => None,
            },
            Some(link) => link.pending.as_ref().map(|pending| Asker::Connection {
                pending: Arc::clone(pending),
                timeout: self.core.config.client_request_timeout,
            }),
        };
        let link = self.link.as_ref().map(|link| ClientLink {
            out: link.out.clone(),
            progress_token: self.meta.progress_token.clone(),
            log: self.meta.log.clone(),
            limiter: Arc::clone(&link.limiter),
            origin,
            asker,
            lease: Some(Arc::clone(&link.lease)),
        });
        let cancel = self.link.as_ref().map(|link| link.cancel.clone()).unwrap_or_default();
        Ok(Context::for_request(self.context_parts(item, cancel, link)))
    }

    /// What a context of this request for the handler of `item` is made of.
    pub(crate) fn context_parts(
        &self,
        item: Option<&ItemParts>,
        cancel: CancelToken,
        link: Option<ClientLink>,
    ) -> RequestParts {
        let (negotiated, request_id) = (Arc::clone(&self.negotiated), self.id.clone());
        let states = Arc::clone(self.states(item));
        RequestParts { negotiated, request_id, states, cancel, link, extras: self.extras.clone() }
    }

    /// The context of a tool call run as a task: its handler sends nothing on the request's
    /// way (answered with the task), asks through the task (or, `after_input`, through the
    /// request's input-required rounds until the task exists), follows the task's cancellation.
    pub(crate) fn task_context(
        &self,
        item: &ItemParts,
        after_input: bool,
        cancel: CancelToken,
    ) -> Result<(Context, Arc<TaskAsker>), ErrorObject> {
        let asker = Arc::new(match after_input {
            true => TaskAsker::before(Arc::new(self.input_round()?)),
            false => TaskAsker::new(),
        });
        let link = ClientLink {
            out: Outlet::Nowhere,
            progress_token: None,
            log: LogThreshold::Off,
            limiter: Arc::default(),
            origin: item.origin,
            asker: Some(Asker::Task(Arc::clone(&asker))),
            lease: None,
        };
        let context = Context::for_request(self.context_parts(Some(item), cancel, Some(link)));
        Ok((context, asker))
    }

    /// The subject of the identity the transport authenticated, when it did.
    pub(crate) fn principal(&self) -> Option<&str> {
        self.extras.as_ref().and_then(|e| e.identity.as_ref()).map(Identity::subject)
    }

    /// The answers a 2026-07-28 request brings: those its verified `requestState` holds,
    /// then its `inputResponses`, by question key (keys no question asks are never read).
    fn input_round(&self) -> Result<InputRound, ErrorObject> {
        #[derive(Deserialize, Default)]
        #[serde(rename_all = "camelCase")]
        struct Retry {
            #[serde(default)]
            input_responses: Option<Map<String, Value>>,
            #[serde(default)]
            request_state: Option<String>,
        }
        let state = LazyState::new(self.method, self.raw_params(), self.principal());
        let retry: Retry = match self.raw_params().map(RawValue::get) {
            Some(text) if mentions!(text, "inputResponses") || mentions!(text, "requestState") => {
                serde_json::from_str(text).map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))?
            }
            _ => Retry::default(),
        };
        let opened = retry.request_state.map(|token| self.core.sealer.open(&token, state.get())).transpose();
        let opened = opened.map_err(|why| ErrorObject::invalid_params(format!("Invalid `requestState`: {why}")))?;
        let (mut answers, resumes) = opened.map_or_else(|| (Map::new(), None), |o| (o.answers, o.ticket));
        // New answers join those the state vouches for (which they cannot replace); past a
        // bound, the rest are ignored, so a retry cannot grow the next state without limit.
        for (key, answer) in retry.input_responses.into_iter().flatten() {
            if answers.len() >= MAX_QUESTIONS {
                break;
            }
            answers.entry(key).or_insert(answer);
        }
        Ok(InputRound::new(answers, state, Arc::clone(&self.core.sealer), resumes))
    }

    /// What answers this request later, from a task (then `context` sends nothing more).
    pub(crate) fn responder(&self, context: &Context) -> Responder {
        Responder {
            core: Arc::clone(&self.core),
            id: self.id.clone(),
            revision: self.revision(),
            context: context.clone(),
        }
    }

    /// The success response line for `result`.
    pub(crate) fn respond<T: WireResult>(&self, cache: Option<CachePolicy>, result: T) -> Outgoing {
        result_line(&self.core, &self.id, self.revision(), cache, result)
    }

    /// The error response line for `error`.
    pub(crate) fn error(&self, error: &ErrorObject) -> Outgoing {
        Outgoing::error(Some(&self.id), error)
    }

    /// Parses the params into `T` (absent params read as `T::default()`).
    pub(crate) fn params_or_default<'p, T: Deserialize<'p> + Default>(&'p self) -> Result<T, ErrorObject> {
        match self.raw_params() {
            None => Ok(T::default()),
            Some(raw) => {
                serde_json::from_str(raw.get()).map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))
            }
        }
    }

    /// Parses the required params into `T`; `method` names the request in errors.
    pub(crate) fn params<'p, T: Deserialize<'p>>(&'p self, method: &str) -> Result<T, ErrorObject> {
        let raw = self.raw_params().ok_or_else(|| ErrorObject::invalid_params(format!("`{method}` needs params")))?;
        serde_json::from_str(raw.get())
            .map_err(|e| ErrorObject::invalid_params(format!("Invalid `{method}` params: {e}")))
    }
}

/// What answers a request from the task that runs it.
#[derive(Debug)]
pub(crate) struct Responder {
    core: Arc<ServerCore>,
    pub(crate) id: RequestId,
    pub(crate) revision: Revision,
    context: Context,
}

impl Responder {
    pub(crate) fn answer<T: WireResult>(&self, cache: Option<CachePolicy>, result: T) -> Outgoing {
        self.context.finish();
        result_line(&self.core, &self.id, self.revision, cache, result)
    }

    pub(crate) fn error(&self, error: &ErrorObject) -> Outgoing {
        self.context.finish();
        Outgoing::error(Some(&self.id), error)
    }

    pub(crate) fn core(&self) -> &ServerCore {
        &self.core
    }

    /// The answer of a handler that stopped to ask the client (2026-07-28): an input-required
    /// result, or -32021 when the client did not declare what the question needs.
    pub(crate) fn interrupted(&self, interrupt: Interrupt) -> Outgoing {
        self.context.finish();
        match interrupt {
            Interrupt::InputRequired { requests, request_state } => {
                result_line(&self.core, &self.id, self.revision, None, InputRequired { requests, request_state })
            }
            Interrupt::MissingCapability(question) => {
                let message = format!(
                    "This request needs the client capability `{}`, which the client did not declare",
                    question.capability_name()
                );
                let error = ErrorObject::new(code::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
                    .with_data(json!({ "requiredCapabilities": question.required_capabilities() }));
                Outgoing::error(Some(&self.id), &error)
            }
        }
    }
}

/// What a request's `params._meta` asks of its handler's notifications.
#[derive(Debug, Clone)]
pub(crate) struct RequestMeta {
    /// `progressToken`: progress may be reported under it.
    pub(crate) progress_token: Option<Value>,
    /// Which log messages may be sent for this request.
    pub(crate) log: LogThreshold,
}

impl RequestMeta {
    /// Reads a request's `params._meta` (see [`meta_of`]): the progress token in every revision,
    /// and under `logging`, a 2026-07-28 request's log level (an unknown one is `Err`).
    pub(crate) fn read(meta: Option<&str>, logging: &Logging) -> Result<Self, ErrorObject> {
        #[derive(Deserialize)]
        struct Meta {
            #[serde(rename = "progressToken", default)]
            progress_token: Option<Value>,
            #[serde(rename = "io.modelcontextprotocol/logLevel", default)]
            log_level: Option<Value>,
        }
        let log_default = match logging {
            Logging::Connection(level) => LogThreshold::Connection(Arc::clone(level)),
            Logging::Disabled | Logging::PerRequest => LogThreshold::Off,
        };
        let Some(text) = meta.filter(|t| mentions!(t, "progressToken") || mentions!(t, "logLevel")) else {
            return Ok(RequestMeta { progress_token: None, log: log_default });
        };
        let Ok(meta) = serde_json::from_str::<Meta>(text) else {
            return Ok(RequestMeta { progress_token: None, log: log_default });
        };
        let progress_token = meta.progress_token.filter(|t| t.is_string() || t.is_i64() || t.is_u64());
        let log = match (logging, meta.log_level) {
            (Logging::PerRequest | Logging::Disabled, Some(level)) => {
                let level = level.as_str().and_then(|l| l.parse::<LogLevel>().ok()).ok_or_else(|| {
                    ErrorObject::invalid_params(
                        "`_meta.io.modelcontextprotocol/logLevel` must be one of debug, info, notice, warning, error, \
                         critical, alert, emergency",
                    )
                })?;
                // Without the logging capability nothing is sent, whatever the client asks.
                if matches!(logging, Logging::Disabled) { LogThreshold::Off } else { LogThreshold::Fixed(level) }
            }
            _ => log_default,
        };
        Ok(RequestMeta { progress_token, log })
    }
}

/// Where a request's log level comes from.
#[derive(Debug)]
pub(crate) enum Logging {
    /// The server did not enable client logging.
    Disabled,
    /// The handshake connection's level (`logging/setLevel`).
    Connection(Arc<std::sync::atomic::AtomicU8>),
    /// The request's own `_meta` (2026-07-28).
    PerRequest,
}

/// The text of a request's `params._meta`, when it has one (an object or not: its readers
/// say what they need of it). Found once per request, without parsing the rest of the params.
pub(crate) fn meta_of(params: Option<&RawValue>) -> Option<&str> {
    let params = params?.get();
    match mentions!(params, "\"_meta\"") {
        true => member(params, "_meta"),
        false => None,
    }
}

/// The `_meta` key a 2026-07-28 request carries.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// Whether a request's `_meta` names a protocol version, which makes it a 2026-07-28 request.
pub(crate) fn is_stateless(meta: Option<&str>) -> bool {
    meta.and_then(|meta| member(meta, META_PROTOCOL_VERSION)).is_some_and(|version| version != "null")
}

/// The `_meta` fields of a 2026-07-28 request.
#[derive(Deserialize)]
struct StatelessMeta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Value,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    client_capabilities: Option<Value>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default)]
    client_info: Option<Implementation>,
}

/// How many `_meta` views a loop keeps: a client sends the same `_meta` on each request, and
/// a loop serves a few clients at once.
const KEPT_VIEWS: usize = 4;

/// The longest `_meta` whose view is kept (longer ones are read each time).
const MAX_KEPT_META: usize = 2048;

/// The views of the last 2026-07-28 `_meta`s a loop read, by their text: a request whose
/// `_meta` is byte for byte one of them is served under the same view without reading it
/// again (a view depends on nothing else).
#[derive(Debug, Default)]
pub(crate) struct StatelessViews {
    kept: Vec<(Box<str>, Arc<Negotiated>)>,
    /// Where the next view is kept once all places are taken.
    next: usize,
}

impl StatelessViews {
    /// The view `meta` asks for, and whether it was read now (not kept); `Err` is the error
    /// to answer with.
    pub(crate) fn view(&mut self, meta: &str) -> Result<(Arc<Negotiated>, bool), ErrorObject> {
        if let Some((_, view)) = self.kept.iter().find(|(kept, _)| **kept == *meta) {
            return Ok((Arc::clone(view), false));
        }
        let view = stateless_view(meta)?;
        if meta.len() <= MAX_KEPT_META {
            let entry = (Box::from(meta), Arc::clone(&view));
            if self.kept.len() < KEPT_VIEWS {
                self.kept.push(entry);
            } else {
                self.kept[self.next] = entry;
                self.next = (self.next + 1) % KEPT_VIEWS;
            }
        }
        Ok((view, true))
    }
}

/// The view a request carrying 2026-07-28 `_meta` is served under, read from that `_meta`
/// alone; `Err` is the error to answer with.
fn stateless_view(meta: &str) -> Result<Arc<Negotiated>, ErrorObject> {
    let meta: StatelessMeta = match serde_json::from_str(meta) {
        Ok(meta) => meta,
        Err(e) => return Err(ErrorObject::invalid_params(format!("Invalid `params._meta`: {e}"))),
    };
    let Some(requested) = meta.protocol_version.as_str() else {
        return Err(ErrorObject::invalid_params(
            "`_meta.io.modelcontextprotocol/protocolVersion` must be a string such as \"2026-07-28\"",
        ));
    };
    let revision = match Revision::parse(requested) {
        Some(rev) if rev.supports(Feature::Stateless) => rev,
        _ => {
            let supported: Vec<&str> =
                Revision::ALL.iter().filter(|r| r.supports(Feature::Stateless)).map(|r| r.as_str()).collect();
            let requested = crate::protocol::excerpt(requested);
            tracing::warn!(
                requested = %requested,
                offered = %supported.join(","),
                "a request asked for a protocol revision this server does not serve without a session"
            );
            return Err(ErrorObject::new(
                code::UNSUPPORTED_PROTOCOL_VERSION,
                format!("Unsupported protocol version `{requested}`: use one of {}", supported.join(", ")),
            )
            .with_data(json!({ "supported": supported, "requested": requested })));
        }
    };
    let client_capabilities = match meta.client_capabilities {
        Some(Value::Object(caps)) => caps,
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "`_meta.io.modelcontextprotocol/clientCapabilities` must be an object",
            ));
        }
        None => {
            return Err(ErrorObject::invalid_params(
                "Missing `_meta.io.modelcontextprotocol/clientCapabilities` (send `{}` when the client has none)",
            ));
        }
    };
    Ok(Arc::new(Negotiated { revision, client_capabilities, client_info: meta.client_info }))
}
