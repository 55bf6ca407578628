//! A remote MCP server served as a server of this process's: [`Server::proxy`] connects a
//! client to it, lists its items, and makes each an item whose handler asks the remote. Mounted
//! ([`Server::mount`]), the remote's items join a server beside its own.
//!
//! What the remote does while a call runs comes back on the way: its progress reports become
//! the call's, its questions (elicitation, sampling, roots) are asked of the client whose call
//! it is; a call the client cancels is cancelled at the remote. When the remote's lists change,
//! the proxy lists again and its clients are told; a resource the remote says changed is said
//! to have changed. The remote sees the proxy's own credentials, those given to the client that
//! connects to it: nothing of a caller's request (its token above all) is passed on.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::Duration;

use mcp_uri_template::UriTemplate;
use serde_json::{Value, json};

use crate::client::{CallOptions, Client, ClientBuilder, ClientError};
use crate::context::Context;
use crate::declare::completion::{CompletionContext, CompletionHandler};
use crate::declare::prompt::{PromptDescriptor, PromptGet};
use crate::declare::resource::{ResourceDescriptor, ResourceRead};
use crate::declare::tool::{ToolCall, ToolDescriptor};
use crate::error::ItemKind;
use crate::protocol::{CallToolResult, ErrorObject, Feature, code};
use crate::server::builder::Server;
use crate::server::handle::ServerHandle;
use crate::util::BoxFuture;

/// How the proxy connects to its remote, given a client builder whose question handlers it
/// set: called at first, and again once the connection was lost.
type Connect = Arc<dyn Fn(ClientBuilder) -> BoxFuture<'static, Result<Client, ClientError>> + Send + Sync>;

tokio::task_local! {
    /// The context of the call being passed on in this task: where the remote's questions go.
    static CALLER: Context;
}

/// The remote end of a proxy.
struct Remote {
    /// How it introduced itself, for messages.
    name: OnceLock<String>,
    connect: Connect,
    /// The connection, while it lasts.
    client: tokio::sync::Mutex<Option<Client>>,
    /// The calls being passed on, by number: a question the remote asks outside any call's
    /// task goes to the one call in flight.
    calls: Mutex<Vec<(u64, Context)>>,
    next_call: AtomicU64,
    /// The proxy server's handle, for its lists and resource updates (once it is made).
    handle: OnceLock<ServerHandle>,
}

impl Server {
    /// A server whose items are those of the remote MCP server `connect` reaches: `connect`
    /// is given a [`ClientBuilder`] (whose question handlers pass the remote's questions on)
    /// and finishes it with the proxy's own credentials and the transport to use. It is called
    /// now, and again when a call finds the connection lost; the remote's name, version and
    /// instructions become the server's.
    ///
    /// Serve it alone, or [`mount`](Self::mount) it in a server beside other items. While the
    /// remote is down its items answer saying so, and the rest of a server keeps serving.
    /// Progress, cancellation, the remote's questions, completions, its list changes and
    /// resource updates pass through, in both eras on either side.
    ///
    /// ```
    /// use mcp_runtime::{Server, ToolDescriptor};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// // The remote: any server (here one in the same process; `builder.http(url)` or
    /// // `builder.bearer(token).http(url)` for one elsewhere).
    /// let remote = || {
    ///     Server::builder("weather", "2.1.0")
    ///         .tool(ToolDescriptor::new("forecast").handler(|_: serde_json::Value| async { "sunny" }))
    /// };
    /// let proxied = Server::proxy(move |builder| builder.memory(remote())).await.unwrap();
    /// let gateway = Server::builder("gateway", "1.0.0").mount("weather", proxied);
    /// assert!(gateway.describe().unwrap().contains("tool weather_forecast"));
    /// # });
    /// ```
    pub async fn proxy<F, Fut>(connect: F) -> Result<Server, ClientError>
    where
        F: Fn(ClientBuilder) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Client, ClientError>> + Send + 'static,
    {
        let connect: Connect = Arc::new(move |builder| Box::pin(connect(builder)));
        let remote = Arc::new(Remote {
            name: OnceLock::new(),
            connect,
            client: tokio::sync::Mutex::new(None),
            calls: Mutex::new(Vec::new()),
            next_call: AtomicU64::new(0),
            handle: OnceLock::new(),
        });
        let client = remote.client().await?;
        let negotiation = client.negotiation();
        let info = negotiation.server_info.clone();
        let (name, version) = info.map_or_else(|| ("remote".to_owned(), "0".to_owned()), |i| (i.name, i.version));
        let _ = remote.name.set(name.clone());
        let mut server = Server::builder(name, version).dynamic_lists();
        if let Some(instructions) = negotiation.instructions.clone() {
            server = server.instructions(instructions);
        }
        let _ = remote.handle.set(server.handle());
        for kind in [ItemKind::Tool, ItemKind::Resource, ItemKind::Prompt] {
            let (tools, resources, prompts) = remote.items(&client, kind).await?;
            server = tools.into_iter().fold(server, Server::tool);
            server = resources.into_iter().fold(server, Server::resource);
            server = prompts.into_iter().fold(server, Server::prompt);
        }
        Ok(server)
    }
}

impl Remote {
    /// A new connection, its questions handled by passing them on.
    async fn connect(remote: &Arc<Remote>) -> Result<Client, ClientError> {
        let weak = Arc::downgrade(remote);
        let asker = |method: &'static str| {
            let weak = Weak::clone(&weak);
            move |params: Value| {
                let weak = Weak::clone(&weak);
                async move {
                    match weak.upgrade() {
                        Some(remote) => remote.pass_question_on(method, params).await,
                        None => Err(ErrorObject::internal("the proxy stopped")),
                    }
                }
            }
        };
        let builder = Client::builder()
            .on_elicitation(asker("elicitation/create"))
            .on_sampling(asker("sampling/createMessage"))
            .on_roots(asker("roots/list"));
        (remote.connect)(builder).await
    }

    /// The connection, made again when it was lost.
    async fn client(self: &Arc<Self>) -> Result<Client, ClientError> {
        let mut current = self.client.lock().await;
        if let Some(client) = current.as_ref().filter(|client| client.ended().is_none()) {
            return Ok(client.clone());
        }
        let client = Remote::connect(self).await?;
        let heard = watch(self, &client);
        // Its changes are heard from now on (a 2026-07-28 remote acknowledged the stream), or
        // as soon as the remote acknowledges: a stream it never opens leaves lists as listed.
        let _ = tokio::time::timeout(LISTEN_ACKNOWLEDGED, heard).await;
        *current = Some(client.clone());
        Ok(client)
    }

    /// Asks the client of the call this question belongs to.
    async fn pass_question_on(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let caller = CALLER.try_with(Context::clone).ok().or_else(|| {
            let calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
            // Outside the call's task (a handshake-era remote asks on its connection), the
            // question is the one call's in flight; with several, passing it to one of them
            // could show one caller another's question.
            match calls.as_slice() {
                [(_, only)] => Some(only.clone()),
                _ => None,
            }
        });
        let Some(caller) = caller else {
            return Err(ErrorObject::new(
                code::INVALID_REQUEST,
                "the proxy cannot tell which of its calls this question belongs to",
            ));
        };
        caller.ask_forwarded(method, params).await.map_err(|e| match e {
            crate::context::asking::AskError::Client(error) => error,
            other => ErrorObject::internal(other.to_string()),
        })
    }

    /// Runs `call` on the connection for the request of `context`: its questions go to that
    /// request's client, and it stops (cancelled at the remote) when that request is cancelled.
    async fn pass_on<T, Fut>(
        self: &Arc<Self>,
        context: &Context,
        call: impl FnOnce(Client) -> Fut,
    ) -> Result<T, ClientError>
    where
        Fut: Future<Output = Result<T, ClientError>>,
    {
        let client = self.client().await?;
        let number = self.next_call.fetch_add(1, Ordering::Relaxed);
        self.calls.lock().unwrap_or_else(PoisonError::into_inner).push((number, context.clone()));
        let _in_flight = InFlight { remote: self, number };
        let cancelled = context.cancelled();
        tokio::select! {
            result = CALLER.scope(context.clone(), call(client)) => result,
            () = cancelled => Err(ClientError::Closed("the call was cancelled".into())),
        }
    }

    /// The remote's items of `kind` (resources and templates for either), as items of the
    /// proxy's.
    async fn items(
        self: &Arc<Self>,
        client: &Client,
        kind: ItemKind,
    ) -> Result<(Vec<ToolDescriptor>, Vec<ResourceDescriptor>, Vec<PromptDescriptor>), ClientError> {
        let capabilities = &client.negotiation().capabilities;
        // Completions are passed on when the remote offers them (2024-11-05 had no capability).
        let completes =
            capabilities.completions.is_some() || !client.revision().supports(Feature::CompletionsCapability);
        let (mut tools, mut resources, mut prompts) = (Vec::new(), Vec::new(), Vec::new());
        match kind {
            ItemKind::Tool if capabilities.tools.is_some() => {
                tools = client.list_tools().await?.into_iter().map(|tool| self.tool(tool)).collect();
            }
            ItemKind::Resource | ItemKind::ResourceTemplate if capabilities.resources.is_some() => {
                let subscribable = capabilities.resources.as_ref().and_then(|r| r.subscribe).unwrap_or(false);
                for resource in client.list_resources().await? {
                    // Its updates come only once subscribed: the proxy hears of them all (a
                    // 2026-07-28 remote, through the stream `watch` opens).
                    if subscribable && client.revision().supports(Feature::Handshake) {
                        client.subscribe(&resource.uri).await?;
                    }
                    resources.push(self.reader(ResourceDescriptor::listed(resource)).subscribable(subscribable));
                }
                for template in client.list_resource_templates().await? {
                    let uri_template = template.uri_template.clone();
                    let parsed = UriTemplate::parse(&uri_template).map_err(|e| {
                        ClientError::Protocol(format!("the remote's template `{uri_template}` does not parse: {e}"))
                    })?;
                    let variables: Vec<String> = parsed.variables().map(str::to_owned).collect();
                    let mut listed = ResourceDescriptor::listed_template(template, parsed);
                    if completes {
                        let reference = json!({"type": "ref/resource", "uri": uri_template});
                        for variable in variables {
                            listed = listed.completed_by(variable, self.completer(reference.clone()));
                        }
                    }
                    resources.push(self.reader(listed));
                }
            }
            ItemKind::Prompt if capabilities.prompts.is_some() => {
                prompts =
                    client.list_prompts().await?.into_iter().map(|prompt| self.prompt(prompt, completes)).collect();
            }
            _ => {}
        }
        Ok((tools, resources, prompts))
    }

    fn tool(self: &Arc<Self>, tool: crate::protocol::Tool) -> ToolDescriptor {
        let name: Arc<str> = Arc::from(tool.name.as_str());
        let remote = Arc::clone(self);
        ToolDescriptor::listed(tool).raw_handler(move |call: ToolCall| {
            let (remote, name) = (Arc::clone(&remote), Arc::clone(&name));
            Box::pin(async move {
                let arguments: Value = match call.arguments.as_deref() {
                    Some(text) => serde_json::from_str(text).unwrap_or(Value::Null),
                    None => Value::Object(serde_json::Map::new()),
                };
                let context = call.context.clone();
                let called = remote.pass_on(&call.context, |client| async move {
                    let (options, mut reports) = CallOptions::new().progress();
                    let call = client.call_tool_with(&name, arguments, options);
                    tokio::pin!(call);
                    loop {
                        tokio::select! {
                            result = &mut call => break result,
                            Some(report) = reports.next() => {
                                context.progress(report.progress, report.total, report.message.as_deref()).await;
                            }
                        }
                    }
                });
                called.await.unwrap_or_else(|e| CallToolResult::error(remote.failed(&e)))
            })
        })
    }

    fn reader(self: &Arc<Self>, descriptor: ResourceDescriptor) -> ResourceDescriptor {
        let remote = Arc::clone(self);
        descriptor.reader(move |read: ResourceRead| {
            let remote = Arc::clone(&remote);
            async move {
                let uri = read.uri().to_owned();
                let read = remote.pass_on(read.context(), |client| async move { client.read_resource(&uri).await });
                read.await.map(|result| result.contents).map_err(|e| remote.failed(&e))
            }
        })
    }

    fn prompt(self: &Arc<Self>, prompt: crate::protocol::Prompt, completes: bool) -> PromptDescriptor {
        let name: Arc<str> = Arc::from(prompt.name.as_str());
        let arguments: Vec<String> = prompt.arguments.iter().map(|a| a.name.clone()).collect();
        let mut descriptor = PromptDescriptor::listed(prompt);
        if completes {
            let reference = json!({"type": "ref/prompt", "name": &*name});
            for argument in arguments {
                descriptor = descriptor.completed_by(argument, self.completer(reference.clone()));
            }
        }
        let remote = Arc::clone(self);
        descriptor.handler(move |get: PromptGet| {
            let (remote, name) = (Arc::clone(&remote), Arc::clone(&name));
            async move {
                let arguments = get.arguments.clone();
                let got =
                    remote.pass_on(&get.context, |client| async move { client.get_prompt(&name, arguments).await });
                got.await.map_err(|e| remote.failed(&e))
            }
        })
    }

    /// Completes an argument of the remote's item `reference` (named as the remote names it)
    /// by asking the remote.
    fn completer(self: &Arc<Self>, reference: Value) -> CompletionHandler {
        let remote = Arc::clone(self);
        CompletionHandler::Waiting(Arc::new(move |asked: CompletionContext| {
            let (remote, reference) = (Arc::clone(&remote), reference.clone());
            Box::pin(async move {
                let failed = |e: ClientError| match e {
                    ClientError::Rpc { error, .. } => error,
                    other => ErrorObject::internal(remote.failed(&other)),
                };
                let client = remote.client().await.map_err(failed)?;
                let completion = client.complete(reference, asked.argument(), asked.value()).await.map_err(failed)?;
                Ok(completion.values)
            })
        }))
    }

    /// How messages name it.
    fn name(&self) -> &str {
        self.name.get().map_or("remote", String::as_str)
    }

    /// What a caller is told when passing its request on failed.
    fn failed(&self, error: &ClientError) -> String {
        let name = self.name();
        match error {
            ClientError::Rpc { error, .. } => format!("the remote server `{name}` answered: {}", error.message),
            other => format!("the remote server `{name}` could not be reached: {other}"),
        }
    }
}

/// Takes a call out of the calls in flight, however it ends.
struct InFlight<'a> {
    remote: &'a Remote,
    number: u64,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.remote.calls.lock().unwrap_or_else(PoisonError::into_inner).retain(|(n, _)| *n != self.number);
    }
}

/// Hears what `client`'s remote says of its lists and resources, while both last: a list that
/// changed is listed again and replaces the proxy's, a resource that changed is said to have.
/// The receiver completes once the remote's changes are heard (a 2026-07-28 remote
/// acknowledged the stream `listen` opens; at once for a handshake-era one).
fn watch(remote: &Arc<Remote>, client: &Client) -> tokio::sync::oneshot::Receiver<()> {
    let mut notices = client.notifications();
    let (heard, hearing) = tokio::sync::oneshot::channel();
    if client.revision().supports(Feature::Stateless) {
        tokio::spawn(listen(client.clone(), heard));
    } else {
        let _ = heard.send(());
    }
    let (remote, client) = (Arc::downgrade(remote), client.clone());
    tokio::spawn(async move {
        while let Some((method, params)) = notices.next_raw().await {
            let Some(remote) = remote.upgrade() else { return };
            let kind = match method.as_str() {
                "notifications/tools/list_changed" => ItemKind::Tool,
                "notifications/resources/list_changed" => ItemKind::Resource,
                "notifications/prompts/list_changed" => ItemKind::Prompt,
                "notifications/resources/updated" => {
                    if let (Some(uri), Some(handle)) = (params.get("uri").and_then(Value::as_str), remote.handle.get())
                    {
                        let _ = handle.resource_updated(uri);
                    }
                    continue;
                }
                _ => continue,
            };
            match remote.items(&client, kind).await {
                Ok((tools, resources, prompts)) => {
                    let Some(handle) = remote.handle.get() else { continue };
                    if let Err(e) = handle.replace(kind, tools, resources, prompts) {
                        tracing::warn!(remote = %remote.name(), error = %e, "the remote's new {kind} list could not be served");
                    }
                }
                Err(e) => {
                    tracing::warn!(remote = %remote.name(), error = %e, "the remote's {kind} list could not be read")
                }
            }
        }
    });
    hearing
}

/// How long connecting waits for a 2026-07-28 remote to acknowledge its stream of changes.
const LISTEN_ACKNOWLEDGED: Duration = Duration::from_secs(10);

/// How long a 2026-07-28 remote's stream of changes is kept open: as long as its connection.
const LISTENING: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// Opens a 2026-07-28 remote's stream of changes (`subscriptions/listen`): the changes of the
/// lists it says may change, and of every resource it lets clients subscribe to. What the
/// stream carries arrives as the connection's notifications, which `watch` hears; the request
/// ends with the connection. `heard` is told once the remote acknowledged the stream, or
/// dropped when there is nothing to listen to or the remote refused.
async fn listen(client: Client, heard: tokio::sync::oneshot::Sender<()>) {
    let capabilities = client.negotiation().capabilities.clone();
    let changing = |list: Option<bool>| list.unwrap_or(false);
    let mut filter = serde_json::Map::new();
    let lists = [
        ("toolsListChanged", capabilities.tools.as_ref().and_then(|c| c.list_changed)),
        ("promptsListChanged", capabilities.prompts.as_ref().and_then(|c| c.list_changed)),
        ("resourcesListChanged", capabilities.resources.as_ref().and_then(|c| c.list_changed)),
    ];
    for (field, list) in lists {
        if changing(list) {
            filter.insert(field.into(), Value::Bool(true));
        }
    }
    if changing(capabilities.resources.as_ref().and_then(|c| c.subscribe)) {
        let uris: Vec<Value> = match client.list_resources().await {
            Ok(resources) => resources.into_iter().map(|r| Value::String(r.uri)).collect(),
            Err(_) => Vec::new(),
        };
        filter.insert("resourceSubscriptions".into(), Value::Array(uris));
    }
    if filter.is_empty() {
        return;
    }
    let params = serde_json::json!({ "notifications": filter });
    let mut notices = client.notifications();
    let listening = client.request_within("subscriptions/listen", params, LISTENING);
    tokio::pin!(listening);
    let mut heard = Some(heard);
    loop {
        tokio::select! {
            ended = &mut listening => {
                if let Err(e) = ended {
                    tracing::debug!(error = %e, "the remote's stream of changes ended");
                }
                return;
            }
            Some((method, _)) = notices.next_raw(), if heard.is_some() => {
                if method == "notifications/subscriptions/acknowledged" && let Some(heard) = heard.take() {
                    let _ = heard.send(());
                }
            }
        }
    }
}
