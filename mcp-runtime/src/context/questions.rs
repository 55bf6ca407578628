//! What a handler asks its client (elicitation, sampling, roots), in both eras: a request on
//! the connection, its answer matched by id (handshake revisions), or an input-required
//! result and the client's retry (2026-07-28).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use std::sync::Arc;

use super::{Asker, Context};
use crate::context::asking::{
    AskError, Elicitation, Question, Root, SampledMessage, SamplingRequest, elicitation_from, form_schema,
};
use crate::context::input_round::{InputRound, Interrupt};
use crate::context::parking::{Parking, Resumed};
use crate::protocol::{Feature, request_line};

impl Context {
    /// Asks the user to fill in a form for `T` (`elicitation/create`): the form's schema comes
    /// from `T`, a struct of strings, numbers, integers, booleans, enums of strings (described
    /// variants become titled choices) and lists of enum values; `Option` fields are
    /// optional, doc comments become descriptions. The user accepts (with the values), declines
    /// or cancels.
    ///
    /// Handshake revisions send the request on the connection; 2026-07-28 answers the request
    /// with an input-required result, and the client's retry brings the answer: to this
    /// handler, kept for it, or (the retry reached another instance, or came after
    /// [`Server::kept_handlers`](crate::Server::kept_handlers)' window) to the handler run again
    /// from the start. Without the
    /// client's `elicitation` capability this fails at once (2026-07-28: the request is
    /// answered with -32021).
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::asking::Elicitation;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     /// Type "yes" to delete
    ///     answer: String,
    /// }
    ///
    /// /// Deletes everything, once the user confirms.
    /// #[mcp_tool(destructive)]
    /// async fn delete_all(ctx: Context) -> Result<String, mcp_runtime::asking::AskError> {
    ///     Ok(match ctx.elicit::<Confirm>("Delete everything?").await? {
    ///         Elicitation::Accept(Confirm { answer }) if answer == "yes" => "Deleted".into(),
    ///         _ => "Kept everything".into(),
    ///     })
    /// }
    /// ```
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, AskError> {
        self.elicit_as(None, message).await
    }

    async fn elicit_as<T: DeserializeOwned + JsonSchema>(
        &self,
        key: Option<&str>,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, AskError> {
        let schema = form_schema::<T>()?;
        let mut params = json!({"message": message.into(), "requestedSchema": schema});
        if self.revision().supports(Feature::ElicitationModes) {
            params["mode"] = json!("form");
        }
        elicitation_from(self.ask(Question::elicit(params), key).await?)
    }

    /// Asks the user to visit `url` (URL elicitation; 2025-11-25 and later, with the client's
    /// `elicitation.url` capability): whether they agreed to go.
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, AskError> {
        self.elicit_url_as(None, message, url).await
    }

    async fn elicit_url_as(
        &self,
        key: Option<&str>,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, AskError> {
        if !self.revision().supports(Feature::ElicitationModes) {
            return Err(AskError::NotDeclared("elicitation.url"));
        }
        let mut params = json!({"mode": "url", "message": message.into(), "url": url.into()});
        if self.revision().supports(Feature::Handshake) {
            params["elicitationId"] =
                json!(format!("{}-{}", self.request_id(), self.inner.asked.load(Ordering::Relaxed)));
        }
        let answer = self.ask(Question::elicit_url(params), key).await?;
        Ok(match elicitation_from::<Value>(answer)? {
            Elicitation::Accept(_) => Elicitation::Accept(()),
            Elicitation::Decline => Elicitation::Decline,
            Elicitation::Cancel => Elicitation::Cancel,
        })
    }

    /// Asks the client's model for a message (`sampling/createMessage`; needs the client's
    /// `sampling` capability, and `sampling.tools` when the request offers tools).
    pub async fn sample(&self, request: SamplingRequest) -> Result<SampledMessage, AskError> {
        self.sample_as(None, request).await
    }

    async fn sample_as(&self, key: Option<&str>, request: SamplingRequest) -> Result<SampledMessage, AskError> {
        let answer = self.ask(Question::sample(&request), key).await?;
        serde_json::from_value(answer).map_err(|e| AskError::Unreadable(e.to_string()))
    }

    /// The client's roots (`roots/list`; needs the client's `roots` capability).
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        self.roots_as(None).await
    }

    async fn roots_as(&self, key: Option<&str>) -> Result<Vec<Root>, AskError> {
        #[derive(serde::Deserialize)]
        struct Roots {
            roots: Vec<Root>,
        }
        let answer = self.ask(Question::roots(), key).await?;
        serde_json::from_value::<Roots>(answer).map(|r| r.roots).map_err(|e| AskError::Unreadable(e.to_string()))
    }

    /// The same questions as [`elicit`](Self::elicit), [`sample`](Self::sample),
    /// [`roots`](Self::roots) and [`elicit_url`](Self::elicit_url), under a key of your
    /// choosing: in 2026-07-28 it names the question in the input-required result (its
    /// `inputRequests`) and the client's answer in the retry (`inputResponses`); elsewhere it
    /// changes nothing. Questions asked together (in one `join!`) reach a 2026-07-28 client in
    /// one result, and its retry answers them all; keys must differ within a request.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::asking::{AskError, SamplingRequest};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Name {
    ///     name: String,
    /// }
    ///
    /// /// Greets the user by name, in words the client's model chose.
    /// #[mcp_tool]
    /// async fn greet(ctx: Context) -> Result<String, AskError> {
    ///     let (name, greeting) = tokio::join!(
    ///         ctx.input("user_name").elicit::<Name>("What is your name?"),
    ///         ctx.input("greeting").sample(SamplingRequest::new(50).user("A greeting, please")),
    ///     );
    ///     let name = match name? {
    ///         mcp_runtime::asking::Elicitation::Accept(Name { name }) => name,
    ///         _ => "stranger".into(),
    ///     };
    ///     Ok(format!("{} {name}", greeting?.text().unwrap_or("Hello")))
    /// }
    /// ```
    pub fn input<'a>(&'a self, key: &'a str) -> Input<'a> {
        Input { context: self, key }
    }

    /// Asks the client what a remote server asked a proxy ([`Server::proxy`](crate::Server::proxy)),
    /// its answer as it came.
    #[cfg(feature = "client")]
    pub(crate) async fn ask_forwarded(&self, method: &str, params: Value) -> Result<Value, AskError> {
        let question = Question::forwarded(method, params).ok_or(AskError::Unavailable)?;
        self.ask(question, None).await
    }

    /// Asks the client `question` the way this request's era does; in 2026-07-28, under `key`
    /// in the input-required result (its number among this request's questions by default).
    async fn ask(&self, question: Question, key: Option<&str>) -> Result<Value, AskError> {
        self.inner.asked.fetch_add(1, Ordering::Relaxed);
        let link = self.inner.link.as_ref().ok_or(AskError::Unavailable)?;
        // A handler kept for its retry asks on behalf of the retry, whose response is not sent.
        if self.live().inner.finished.load(Ordering::Acquire) {
            return Err(AskError::Unavailable);
        }
        let declared = question.declared_in(self.client_capabilities());
        let asker = link.asker.as_ref().ok_or(AskError::Unavailable)?;
        let round = match asker {
            Asker::Round(round) => Some(round),
            Asker::Task(asker) => match asker.task.get() {
                Some(task) => {
                    if !declared {
                        return Err(AskError::NotDeclared(question.capability_name()));
                    }
                    let key = key.map_or_else(|| self.inner.asked.load(Ordering::Relaxed).to_string(), str::to_owned);
                    let answer = task.ask(key, json!({"method": question.method, "params": question.params}));
                    // The task waits as long as it lives (its time to live bounds it).
                    return answer.await.map_err(|_| AskError::Disconnected);
                }
                None => asker.round.as_ref(),
            },
            Asker::Connection { .. } => None,
        };
        if let Some(round) = round {
            if declared {
                // The executor answers the request now; this handler is kept for the retry,
                // which brings the answer, or dropped while it waits.
                return Ok(round.next(question, key).await);
            }
            round.stop(Interrupt::MissingCapability(question));
            return std::future::pending().await;
        }
        match asker {
            Asker::Round(_) | Asker::Task(_) => Err(AskError::Unavailable),
            Asker::Connection { pending, timeout } => {
                if !declared {
                    return Err(AskError::NotDeclared(question.capability_name()));
                }
                if question.needs == ("elicitation", None) && !self.revision().supports(Feature::Elicitation) {
                    return Err(AskError::NotDeclared("elicitation"));
                }
                let (id, answer) = pending.register();
                let line = request_line(&id, question.method, &question.params);
                if !link.out.send(line).await {
                    pending.forget(&id);
                    return Err(AskError::Disconnected);
                }
                // A handler waiting for its client holds no in-flight slot.
                if let Some(lease) = &link.lease {
                    lease.release();
                }
                let outcome = tokio::time::timeout(*timeout, answer).await;
                if let Some(lease) = &link.lease {
                    lease.reacquire().await;
                }
                match outcome {
                    Ok(Ok(Ok(answer))) => Ok(answer),
                    Ok(Ok(Err(error))) => Err(AskError::Client(error)),
                    Ok(Err(_)) => Err(AskError::Disconnected),
                    Err(_) => {
                        pending.forget(&id);
                        Err(AskError::TimedOut(*timeout))
                    }
                }
            }
        }
    }

    /// Completes when this 2026-07-28 request's handler was interrupted to ask the client
    /// (never for other requests).
    pub(crate) async fn interrupted(&self) -> Interrupt {
        match self.round() {
            Some(round) => round.interrupted().await,
            None => std::future::pending().await,
        }
    }

    /// The interruption, if the handler was interrupted (checked after its first poll).
    pub(crate) fn take_interrupt(&self) -> Option<Interrupt> {
        self.round().and_then(|round| round.take())
    }

    /// Whether this request can be interrupted to ask the client (2026-07-28).
    pub(crate) fn can_interrupt(&self) -> bool {
        self.round().is_some()
    }

    /// Its handler, run as it was read (not as a task), may be kept in `parking` for the
    /// client's retry when it stops to ask (2026-07-28).
    pub(crate) fn may_keep_in(&self, parking: &Arc<Parking>) {
        if let Some(round) = self.own_round() {
            round.keep_in(parking);
        }
    }

    /// Whether this request's handler would be kept for the retry should it stop to ask.
    pub(crate) fn may_be_kept(&self) -> bool {
        self.own_round().is_some_and(|round| round.keeps())
    }

    /// Keeps this request's handler, stopped to ask its client, for the retry: `work` is what
    /// is left of it. `false` when it cannot be kept (then it is dropped).
    pub(crate) fn keep_stopped<W: Send + 'static>(&self, work: W) -> bool {
        self.own_round().is_some_and(|round| round.keep(self.clone(), work))
    }

    /// The handler this retry's state says was kept for it, taken back from `parking` when it
    /// is there, now serving this request with its answers.
    pub(crate) fn take_kept<W: 'static>(&self, parking: &Parking) -> Option<Resumed<W>> {
        let round = self.own_round()?;
        let resumed = round.resumed::<W>(parking)?;
        resumed.context.resume_as(self.clone());
        if let Some(kept_round) = resumed.context.own_round() {
            kept_round.supply(round.answers());
        }
        Some(resumed)
    }

    /// The round of a request asking through input-required results (not a task's).
    fn own_round(&self) -> Option<&Arc<InputRound>> {
        match self.inner.link.as_ref()?.asker.as_ref()? {
            Asker::Round(round) => Some(round),
            Asker::Task(_) | Asker::Connection { .. } => None,
        }
    }

    /// The request's round of questions, while its questions go there (2026-07-28, not in a
    /// task).
    fn round(&self) -> Option<&InputRound> {
        match self.inner.link.as_ref().and_then(|link| link.asker.as_ref())? {
            Asker::Round(round) => Some(round),
            Asker::Task(asker) if asker.task.get().is_none() => asker.round.as_deref(),
            Asker::Task(_) | Asker::Connection { .. } => None,
        }
    }
}

/// A question under a key of the handler's choosing: see [`Context::input`].
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    context: &'a Context,
    key: &'a str,
}

impl Input<'_> {
    /// [`Context::elicit`], under this key.
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(
        self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, AskError> {
        self.context.elicit_as(Some(self.key), message).await
    }

    /// [`Context::elicit_url`], under this key.
    pub async fn elicit_url(
        self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, AskError> {
        self.context.elicit_url_as(Some(self.key), message, url).await
    }

    /// [`Context::sample`], under this key.
    pub async fn sample(self, request: SamplingRequest) -> Result<SampledMessage, AskError> {
        self.context.sample_as(Some(self.key), request).await
    }

    /// [`Context::roots`], under this key.
    pub async fn roots(self) -> Result<Vec<Root>, AskError> {
        self.context.roots_as(Some(self.key)).await
    }
}
