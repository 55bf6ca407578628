//! How a [`TestClient`](super::TestClient) answers the server's questions: the handlers a test
//! gives for elicitation, sampling and roots, the capabilities they declare, and the record of
//! what was asked. The same handlers answer both eras: a request the server sends (handshake
//! revisions) and the `inputRequests` of an input-required result (2026-07-28).

use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use crate::protocol::Revision;

/// A handler for one kind of question: given the question's params, the client's result.
pub(crate) type Answerer = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

/// A question the server asked the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: String,
    /// Its params, as the server sent them.
    pub params: Value,
}

/// The client's handlers and what they were asked.
#[derive(Default)]
pub(crate) struct Answers {
    pub(crate) elicitation: Option<Answerer>,
    pub(crate) sampling: Option<Answerer>,
    pub(crate) roots: Option<Answerer>,
    /// The client opts in to the tasks extension (2026-07-28).
    pub(crate) tasks: bool,
    asked: Mutex<Vec<Question>>,
}

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answers")
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .finish_non_exhaustive()
    }
}

impl Answers {
    /// The capabilities the handlers imply, as `revision` spells them (a client that answers
    /// elicitation answers both modes where the revision has modes).
    pub(crate) fn capabilities(&self, revision: Revision) -> Value {
        let mut capabilities = Map::new();
        if self.elicitation.is_some() {
            let modes = revision >= Revision::V2025_11_25;
            capabilities.insert("elicitation".into(), if modes { json!({"form": {}, "url": {}}) } else { json!({}) });
        }
        if self.sampling.is_some() {
            capabilities.insert("sampling".into(), json!({}));
        }
        if self.roots.is_some() {
            capabilities.insert("roots".into(), json!({}));
        }
        if self.tasks && revision.supports(crate::protocol::Feature::Stateless) {
            capabilities.insert("extensions".into(), json!({ crate::tasks::EXTENSION: {} }));
        }
        Value::Object(capabilities)
    }

    /// The answer to a question of `method`, recording it; `None` when no handler answers
    /// that kind of question.
    pub(crate) fn answer(&self, method: &str, params: &Value) -> Option<Value> {
        let handler = match method {
            "elicitation/create" => self.elicitation.as_ref(),
            "sampling/createMessage" => self.sampling.as_ref(),
            "roots/list" => self.roots.as_ref(),
            _ => None,
        }?;
        let question = Question { method: method.to_owned(), params: params.clone() };
        self.asked.lock().unwrap_or_else(|e| e.into_inner()).push(question);
        Some(handler(params))
    }

    /// The questions answered so far, in order.
    pub(crate) fn asked(&self) -> Vec<Question> {
        self.asked.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether any handler is given.
    pub(crate) fn any(&self) -> bool {
        self.elicitation.is_some() || self.sampling.is_some() || self.roots.is_some()
    }
}
