//! Resources and resource templates: descriptors (static data plus a read handler), and what a
//! read handler may return.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::context::Context;
use crate::declare::completion::{CompletionHandler, IntoCompleter};
use crate::declare::handler::HandlerFn;
use crate::declare::item::ItemParts;
use crate::declare::tool::Json;
use crate::protocol::CachePolicy;
use crate::protocol::{Annotations, ErrorObject, Icon, Resource, ResourceContents, ResourceTemplate};
use crate::util::BoxFuture;
use mcp_uri_template::{UriTemplate, UriTemplateError};

/// One read of a resource: the URI asked for, the template's variables, the context.
#[derive(Debug)]
pub struct ResourceRead {
    pub(crate) uri: String,
    pub(crate) variables: Vec<(String, String)>,
    pub(crate) mime_type: Option<Arc<str>>,
    pub(crate) context: Context,
}

impl ResourceRead {
    /// The URI being read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The value of a template variable, as it appeared in the URI (percent-decoded).
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// A template variable parsed into `T`; the error is the -32602 to answer with, naming the
    /// variable.
    pub fn parse_variable<T>(&self, name: &str) -> Result<T, ErrorObject>
    where
        T: std::str::FromStr,
        T::Err: fmt::Display,
    {
        let raw = self
            .variable(name)
            .ok_or_else(|| ErrorObject::invalid_params(format!("The URI `{}` has no variable `{name}`", self.uri)))?;
        raw.parse::<T>().map_err(|e| {
            ErrorObject::invalid_params(format!("Invalid value `{raw}` for URI template variable `{name}`: {e}"))
                .with_data(serde_json::json!({ "uri": self.uri, "variable": name }))
        })
    }

    /// The request's context.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The declared MIME type, if any.
    pub fn mime(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// The former name of [`mime`](Self::mime).
    #[deprecated(since = "0.1.0", note = "renamed `mime`, as the `#[mcp_resource]` key is")]
    pub fn mime_type(&self) -> Option<&str> {
        self.mime()
    }
}

/// Why a read failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadError {
    /// There is no such resource: -32002 (handshake revisions) or -32602 (2026-07-28), with
    /// `data.uri`.
    NotFound,
    /// Any other failure, answered as this error.
    Error(ErrorObject),
}

/// A resource that does not exist; return it as the `Err` of a read.
///
/// ```
/// use mcp_runtime::{ResourceNotFound, Json};
/// fn lookup(name: &str) -> Result<Json<Vec<String>>, ResourceNotFound> {
///     if name == "books" { Ok(Json(vec!["atlas".into()])) } else { Err(ResourceNotFound) }
/// }
/// assert!(lookup("cars").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResourceNotFound;

impl fmt::Display for ResourceNotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("resource not found")
    }
}

impl std::error::Error for ResourceNotFound {}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotFound => ResourceNotFound.fmt(f),
            ReadError::Error(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    /// The error a read's `Err` is answered with, whatever its type, as a tool's or a
    /// prompt's is: a [`ReadError`], [`ResourceNotFound`] or [`ErrorObject`] as it says, any
    /// other error (`std::io::Error`, a database's, `String`) -32603 with its message.
    fn of<E: fmt::Display + 'static>(error: E) -> ReadError {
        // `Any` instead of more impls: coherence allows only one `Result<T, E>` impl.
        let mut slot = Some(error);
        let any = &mut slot as &mut dyn std::any::Any;
        if let Some(read) = any.downcast_mut::<Option<ReadError>>().and_then(Option::take) {
            return read;
        }
        if any.downcast_mut::<Option<ResourceNotFound>>().is_some() {
            return ReadError::NotFound;
        }
        if let Some(object) = any.downcast_mut::<Option<ErrorObject>>().and_then(Option::take) {
            return ReadError::Error(object);
        }
        let message = slot.map_or_else(|| "the read failed".to_owned(), |error| error.to_string());
        ReadError::Error(ErrorObject::internal(message))
    }
}

impl From<ResourceNotFound> for ReadError {
    fn from(_: ResourceNotFound) -> Self {
        ReadError::NotFound
    }
}

impl From<ErrorObject> for ReadError {
    fn from(e: ErrorObject) -> Self {
        ReadError::Error(e)
    }
}

impl From<String> for ReadError {
    fn from(message: String) -> Self {
        ReadError::Error(ErrorObject::internal(message))
    }
}

impl From<&str> for ReadError {
    fn from(message: &str) -> Self {
        ReadError::Error(ErrorObject::internal(message))
    }
}

/// What a resource read may return: text (`String`, `&'static str`), bytes (`Vec<u8>`, sent
/// base64), [`Json<T>`] (serialized text, `application/json` unless declared otherwise),
/// [`ResourceContents`] or a `Vec` of them, and `Result<T, E>` with any error a tool may return
/// (`E: Display`): [`ResourceNotFound`] answers "not found", a [`ReadError`] or [`ErrorObject`]
/// as it says, any other (`std::io::Error`, a database's error, `String`) -32603 with its
/// message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP resource",
    label = "this type cannot become resource contents",
    note = "return a `String`, `Vec<u8>`, `Json<T>`, `ResourceContents`, `Vec<ResourceContents>`, or a `Result` of one of them whose error implements `Display` (`ResourceNotFound` answers \"not found\")"
)]
pub trait IntoResourceContents {
    /// The contents of the resource at `uri`, whose declared MIME type is `mime_type`.
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ReadError>;

    /// The MIME type this type's contents have when the declaration names none
    /// (`application/json` for [`Json<T>`]).
    fn default_mime_type() -> Option<&'static str> {
        None
    }
}

impl IntoResourceContents for String {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ReadError> {
        Ok(vec![ResourceContents::text(uri, mime_type.map(str::to_owned), self)])
    }
}

impl IntoResourceContents for &'static str {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ReadError> {
        self.to_owned().into_contents(uri, mime_type)
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ReadError> {
        Ok(vec![ResourceContents::blob(uri, mime_type.map(str::to_owned), &self)])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<ResourceContents>, ReadError> {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<ResourceContents>, ReadError> {
        Ok(self)
    }
}

impl<T: Serialize> IntoResourceContents for Json<T> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ReadError> {
        let text = serde_json::to_string(&self.0).map_err(|e| {
            ReadError::Error(ErrorObject::internal(format!("The resource could not be serialized: {e}")))
        })?;
        let mime = mime_type.unwrap_or("application/json").to_owned();
        Ok(vec![ResourceContents::text(uri, Some(mime), text)])
    }

    fn default_mime_type() -> Option<&'static str> {
        Some("application/json")
    }
}

impl<T: IntoResourceContents, E: fmt::Display + 'static> IntoResourceContents for Result<T, E> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ReadError> {
        self.map_err(ReadError::of)?.into_contents(uri, mime_type)
    }

    fn default_mime_type() -> Option<&'static str> {
        T::default_mime_type()
    }
}

pub(crate) type ReadHandler = HandlerFn<ResourceRead, Result<Vec<ResourceContents>, ReadError>>;
pub(crate) type ListHandler = Arc<dyn Fn(Context) -> BoxFuture<'static, Vec<Resource>> + Send + Sync>;

/// Where a resource lives: one URI, or every URI a template matches.
#[derive(Debug, Clone)]
pub(crate) enum Address {
    Fixed(Resource),
    Template { template: ResourceTemplate, parsed: UriTemplate },
}

/// A resource or a resource template: what the lists show of it, and the handler
/// `resources/read` runs.
///
/// ```
/// use mcp_runtime::{ResourceDescriptor, ResourceRead, ResourceNotFound};
///
/// let readme = ResourceDescriptor::fixed("docs://readme", "readme")
///     .mime("text/markdown")
///     .reader(|_read: ResourceRead| async { "# Hello" });
/// let chapter = ResourceDescriptor::template("docs://chapters/{n}", "chapter")
///     .unwrap()
///     .reader(|read: ResourceRead| async move {
///         let n: u32 = read.parse_variable("n")?;
///         if n > 3 { return Err(ResourceNotFound.into()); }
///         Ok::<_, mcp_runtime::ReadError>(format!("chapter {n}"))
///     });
/// assert_eq!(chapter.name(), "chapter");
/// ```
pub struct ResourceDescriptor {
    pub(crate) address: Address,
    pub(crate) reader: Option<ReadHandler>,
    pub(crate) lister: Option<ListHandler>,
    pub(crate) subscribe: bool,
    pub(crate) cache: Option<CachePolicy>,
    pub(crate) completions: Vec<(String, CompletionHandler)>,
    pub(crate) parts: ItemParts,
}

impl fmt::Debug for ResourceDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceDescriptor")
            .field("address", &self.address)
            .field("subscribe", &self.subscribe)
            .field("defined_at", &self.parts.defined_at)
            .finish_non_exhaustive()
    }
}

impl ResourceDescriptor {
    fn new(address: Address) -> Self {
        ResourceDescriptor {
            address,
            reader: None,
            lister: None,
            subscribe: false,
            cache: None,
            completions: Vec::new(),
            parts: ItemParts::default(),
        }
    }

    /// A resource as another server lists it, with no reader yet.
    #[cfg(feature = "client")]
    pub(crate) fn listed(resource: Resource) -> Self {
        Self::new(Address::Fixed(resource))
    }

    /// A template as another server lists it (`parsed` from its `uri_template`), with no
    /// reader yet.
    #[cfg(feature = "client")]
    pub(crate) fn listed_template(template: ResourceTemplate, parsed: UriTemplate) -> Self {
        Self::new(Address::Template { template, parsed })
    }

    /// Completes the template variable `variable` with `completer`, of any kind.
    #[cfg(feature = "client")]
    pub(crate) fn completed_by(mut self, variable: String, completer: CompletionHandler) -> Self {
        self.completions.push((variable, completer));
        self
    }

    /// A resource at one fixed URI.
    pub fn fixed(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self::new(Address::Fixed(Resource::new(uri, name)))
    }

    /// A resource template: every URI `uri_template` (RFC 6570 `{var}` and `{+var}`) matches.
    pub fn template(uri_template: impl Into<String>, name: impl Into<String>) -> Result<Self, UriTemplateError> {
        let source = uri_template.into();
        let parsed = UriTemplate::parse(&source)?;
        let template = ResourceTemplate {
            uri_template: source,
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            meta: None,
        };
        Ok(Self::new(Address::Template { template, parsed }))
    }

    /// The resource's (or template's) name.
    pub fn name(&self) -> &str {
        match &self.address {
            Address::Fixed(r) => &r.name,
            Address::Template { template, .. } => &template.name,
        }
    }

    pub(crate) fn is_template(&self) -> bool {
        matches!(self.address, Address::Template { .. })
    }

    /// The fixed URI, or the template as written.
    pub fn uri(&self) -> &str {
        match &self.address {
            Address::Fixed(r) => &r.uri,
            Address::Template { template, .. } => &template.uri_template,
        }
    }

    fn edit(mut self, fixed: impl FnOnce(&mut Resource), template: impl FnOnce(&mut ResourceTemplate)) -> Self {
        match &mut self.address {
            Address::Fixed(r) => fixed(r),
            Address::Template { template: t, .. } => template(t),
        }
        self
    }

    /// Sets the display name.
    #[must_use]
    pub fn title(self, title: impl Into<String>) -> Self {
        let title = title.into();
        let copy = title.clone();
        self.edit(|r| r.title = Some(title), |t| t.title = Some(copy))
    }

    /// Sets the description.
    #[must_use]
    pub fn description(self, description: impl Into<String>) -> Self {
        let d = description.into();
        let copy = d.clone();
        self.edit(|r| r.description = Some(d), |t| t.description = Some(copy))
    }

    /// Sets the MIME type of the contents (the wire's `mimeType`; `mime` in
    /// `#[mcp_resource]`).
    #[must_use]
    pub fn mime(self, mime: impl Into<String>) -> Self {
        let m = mime.into();
        let copy = m.clone();
        self.edit(|r| r.mime_type = Some(m), |t| t.mime_type = Some(copy))
    }

    /// The former name of [`mime`](Self::mime).
    #[deprecated(since = "0.1.0", note = "renamed `mime`, as the `#[mcp_resource]` key is")]
    #[must_use]
    pub fn mime_type(self, mime_type: impl Into<String>) -> Self {
        self.mime(mime_type)
    }

    /// Sets the size in bytes (fixed resources only; templates have no size).
    #[must_use]
    pub fn size(self, bytes: u64) -> Self {
        self.edit(|r| r.size = Some(bytes), |_| {})
    }

    /// Sets the annotations.
    #[must_use]
    pub fn annotations(self, annotations: Annotations) -> Self {
        let copy = annotations.clone();
        self.edit(|r| r.annotations = Some(annotations), |t| t.annotations = Some(copy))
    }

    /// Adds an icon.
    #[must_use]
    pub fn icon(self, icon: Icon) -> Self {
        let copy = icon.clone();
        self.edit(
            |r| r.icons.get_or_insert_with(Vec::new).push(icon),
            |t| t.icons.get_or_insert_with(Vec::new).push(copy),
        )
    }

    /// Tags the resource or template (see [`ToolDescriptor::tag`](crate::ToolDescriptor::tag));
    /// the resources a template's lister enumerates carry the template's tags.
    #[must_use]
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.parts.tags.add(tag.into());
        self
    }

    /// The resource's tags.
    pub fn tags(&self) -> &[String] {
        self.parts.tags.as_slice()
    }

    /// Needs `scope` of a caller's token to be read (see
    /// [`ToolDescriptor::scope`](crate::ToolDescriptor::scope)); the resources a template's
    /// lister enumerates need the template's scopes.
    #[must_use]
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.parts.scopes.add(scope.into());
        self
    }

    /// The scopes the resource needs.
    pub fn scopes(&self) -> &[String] {
        self.parts.scopes.as_slice()
    }

    /// Adds a `_meta` entry.
    #[must_use]
    pub fn meta(self, key: impl Into<String>, value: Value) -> Self {
        let key = key.into();
        let (k2, v2) = (key.clone(), value.clone());
        self.edit(
            |r| {
                r.meta.get_or_insert_with(Map::new).insert(key, value);
            },
            |t| {
                t.meta.get_or_insert_with(Map::new).insert(k2, v2);
            },
        )
    }

    /// Lets clients subscribe to changes of this resource (`resources/subscribe`,
    /// `subscriptions/listen`); the server then declares `resources.subscribe`.
    #[must_use]
    pub fn subscribable(mut self, subscribe: bool) -> Self {
        self.subscribe = subscribe;
        self
    }

    /// Sets how long 2026-07-28 clients may cache what a read returns (default: one minute,
    /// public).
    #[must_use]
    pub fn cache(mut self, policy: CachePolicy) -> Self {
        self.cache = Some(policy);
        self
    }

    /// Records where the resource is defined, for start-up errors (`file:line`).
    #[must_use]
    pub fn defined_at(mut self, location: impl Into<Cow<'static, str>>) -> Self {
        self.parts.defined_at = location.into();
        self
    }

    /// The former name of [`declared_mime`](Self::declared_mime).
    #[deprecated(since = "0.1.0", note = "renamed `declared_mime`, as the `#[mcp_resource]` key is")]
    pub fn declared_mime_type(&self) -> Option<&str> {
        self.declared_mime()
    }

    /// The declared MIME type.
    pub fn declared_mime(&self) -> Option<&str> {
        match &self.address {
            Address::Fixed(r) => r.mime_type.as_deref(),
            Address::Template { template, .. } => template.mime_type.as_deref(),
        }
    }

    /// Sets how long a read may run: past it the read is answered with an internal error
    /// (-32603) naming the limit (the server-wide default is
    /// [`Server::default_timeout`](crate::Server::default_timeout); none unless set).
    #[must_use]
    pub fn timeout(mut self, limit: std::time::Duration) -> Self {
        self.parts.spec.timeout = Some(limit);
        self
    }

    /// Sets the read handler. When no MIME type was set, the return type's default one (see
    /// [`IntoResourceContents::default_mime_type`]) is declared.
    #[must_use]
    pub fn reader<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoResourceContents,
    {
        self = self.with_default_mime::<Fut::Output>();
        let f = Arc::new(f);
        self.reader = Some(HandlerFn::sendable(move |read: ResourceRead| resource_read(Arc::clone(&f), read)));
        self
    }

    /// Like [`reader`](Self::reader), for a function whose future is not `Send`: it runs on
    /// the server's one thread for local handlers. What `#[mcp_resource(.., local)]` uses.
    #[must_use]
    pub fn local_reader<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
        Fut: Future + 'static,
        Fut::Output: IntoResourceContents,
    {
        self = self.with_default_mime::<Fut::Output>();
        let f = Arc::new(f);
        self.reader = Some(HandlerFn::local(move |read: ResourceRead| resource_read(Arc::clone(&f), read)));
        self
    }

    /// Declares `R`'s default MIME type when none was set.
    fn with_default_mime<R: IntoResourceContents>(self) -> Self {
        match R::default_mime_type() {
            Some(mime) if self.declared_mime().is_none() => self.mime(mime),
            _ => self,
        }
    }

    /// For a template: a function naming its concrete resources, which `resources/list`
    /// then shows beside the fixed ones.
    #[must_use]
    pub fn lister<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<Resource>> + Send + 'static,
    {
        let f = Arc::new(f);
        self.lister = Some(Arc::new(move |ctx| {
            let f = Arc::clone(&f);
            Box::pin(async move { f(ctx).await })
        }));
        self
    }

    /// Completes the template variable `variable` with `completer` (see [`IntoCompleter`]).
    #[must_use]
    pub fn complete<M>(mut self, variable: impl Into<String>, completer: impl IntoCompleter<M>) -> Self {
        self.completions.push((variable.into(), completer.into_completer()));
        self
    }
}

/// One read by a resource's handler, its result turned into contents of its URI (`Send` when
/// `f`'s future is: one body for both kinds of handler).
async fn resource_read<F, Fut>(f: Arc<F>, read: ResourceRead) -> Result<Vec<ResourceContents>, ReadError>
where
    F: Fn(ResourceRead) -> Fut,
    Fut: Future,
    Fut::Output: IntoResourceContents,
{
    let uri = read.uri.clone();
    let mime = read.mime_type.clone();
    f(read).await.into_contents(&uri, mime.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read<E: fmt::Display + 'static>(result: Result<String, E>) -> Result<Vec<ResourceContents>, ReadError> {
        result.into_contents("memo://a", None)
    }

    #[test]
    fn a_read_s_err_may_be_any_error_a_tool_may_return() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        assert_eq!(read(Err(io)), Err(ReadError::Error(ErrorObject::internal("no such file"))));
        let parsed = "x".parse::<u32>().map(|n| n.to_string());
        assert_eq!(read(parsed), Err(ReadError::Error(ErrorObject::internal("invalid digit found in string"))));
        assert_eq!(read::<&str>(Err("gone")), Err(ReadError::Error(ErrorObject::internal("gone"))));
        // The protocol's own errors keep what they say.
        assert_eq!(read(Err(ResourceNotFound)), Err(ReadError::NotFound));
        assert_eq!(read(Err(ReadError::NotFound)), Err(ReadError::NotFound));
        let invalid = ErrorObject::invalid_params("bad id");
        assert_eq!(read(Err(invalid.clone())), Err(ReadError::Error(invalid)));
        assert_eq!(read::<ReadError>(Ok("text".into())).map(|c| c.len()), Ok(1));
    }
}
