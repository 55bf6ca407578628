//! One 2026-07-28 request's round of questions: the answers its client gave so far, the
//! interruption that asks what they do not answer, and the handler kept waiting for the retry.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value, json};
use tokio::sync::Notify;

use crate::context::Context;
use crate::context::asking::Question;
use crate::context::parking::{Parking, Resumed};
use crate::context::request_state::{LazyState, Sealer};
use crate::util::lock;

/// Why a 2026-07-28 handler was interrupted: the request is answered with this instead of
/// the handler's result.
#[derive(Debug, Clone)]
pub(crate) enum Interrupt {
    /// An input-required result: the questions, keyed, and the sealed state.
    InputRequired { requests: Map<String, Value>, request_state: String },
    /// The handler needs a capability the client did not declare (-32021).
    MissingCapability(Question),
}

/// One 2026-07-28 request's round of questions: the answers the client gave so far (by
/// question key) and, once the handler asks what they do not answer, the interruption.
///
/// A handler stopped at a question waits on its round: when it is kept for the retry (see
/// [`parking`](super::parking)), the retry [supplies](Self::supply) the answers and the
/// question returns; otherwise it is dropped while it waits.
#[derive(Debug)]
pub(crate) struct InputRound {
    answers: Mutex<Map<String, Value>>,
    /// The questions waiting for an answer, by key: asked again when a retry does not answer.
    waiting: Mutex<Map<String, Value>>,
    supplied: Notify,
    asked: AtomicUsize,
    state: LazyState,
    sealer: Arc<Sealer>,
    /// Where the handler is kept for the retry, once its executor said it can be.
    parking: OnceLock<Arc<Parking>>,
    /// The ticket the last interruption's state names (taken when the handler is kept).
    ticket: Mutex<Option<u64>>,
    /// The ticket of the handler this request's state says is waiting for it, if any.
    resumes: Option<u64>,
    interrupt: Mutex<Option<Interrupt>>,
    interrupted: Notify,
}

impl InputRound {
    /// A round for a request whose earlier answers are `answers` (from the verified state, then
    /// the retry's `inputResponses`); `state` holds what the next state binds; `resumes` is the
    /// ticket of the handler the verified state says is kept for this retry.
    pub(crate) fn new(
        answers: Map<String, Value>,
        state: LazyState,
        sealer: Arc<Sealer>,
        resumes: Option<u64>,
    ) -> Self {
        InputRound {
            answers: Mutex::new(answers),
            waiting: Mutex::new(Map::new()),
            supplied: Notify::new(),
            asked: AtomicUsize::new(0),
            state,
            sealer,
            parking: OnceLock::new(),
            ticket: Mutex::new(None),
            resumes,
            interrupt: Mutex::new(None),
            interrupted: Notify::new(),
        }
    }

    /// The answer to the next question (keyed `key`, else by its number): at once when the
    /// round holds it; otherwise after recording the interruption that asks it, once a retry
    /// supplies it (a handler that is not kept is dropped while it waits). Questions asked
    /// before the handler stops (in one `join!`, say) go out together, in one input-required
    /// result.
    pub(crate) async fn next(&self, question: Question, key: Option<&str>) -> Value {
        let k = self.asked.fetch_add(1, Ordering::SeqCst);
        let key = key.map_or_else(|| k.to_string(), str::to_owned);
        if let Some(answer) = self.answer(&key) {
            return answer;
        }
        let request = json!({"method": question.method, "params": question.params});
        lock(&self.waiting).insert(key.clone(), request.clone());
        self.ask(Map::from_iter([(key.clone(), request)]));
        loop {
            let supplied = self.supplied.notified();
            if let Some(answer) = self.answer(&key) {
                lock(&self.waiting).remove(&key);
                return answer;
            }
            supplied.await;
        }
    }

    /// The answer under `key`: an answer is a result object; anything else answers nothing,
    /// and the question is asked again.
    fn answer(&self, key: &str) -> Option<Value> {
        lock(&self.answers).get(key).filter(|answer| answer.is_object()).cloned()
    }

    /// Records the interruption asking `requests` (joining one already recorded).
    fn ask(&self, requests: Map<String, Value>) {
        let mut interrupt = lock(&self.interrupt);
        match &mut *interrupt {
            Some(Interrupt::InputRequired { requests: asked, .. }) => asked.extend(requests),
            // A missing capability already stops the handler.
            Some(Interrupt::MissingCapability(_)) => {}
            None => {
                let ticket = self.parking.get().map(|parking| parking.ticket());
                *lock(&self.ticket) = ticket;
                let state = self.state.get().with_answers(lock(&self.answers).clone()).with_ticket(ticket);
                let request_state = self.sealer.seal(&state);
                *interrupt = Some(Interrupt::InputRequired { requests, request_state });
            }
        }
        drop(interrupt);
        self.interrupted.notify_one();
    }

    /// Records why the handler stops (the first reason wins).
    pub(crate) fn stop(&self, interrupt: Interrupt) {
        lock(&self.interrupt).get_or_insert(interrupt);
        self.interrupted.notify_one();
    }

    /// The interruption, if the handler was interrupted.
    pub(crate) fn take(&self) -> Option<Interrupt> {
        lock(&self.interrupt).take()
    }

    /// Completes once the handler was interrupted.
    pub(crate) async fn interrupted(&self) -> Interrupt {
        loop {
            let notified = self.interrupted.notified();
            if let Some(interrupt) = self.take() {
                return interrupt;
            }
            notified.await;
        }
    }

    /// The handler may be kept in `parking` for the retry when it stops: the states it seals
    /// name a ticket there.
    pub(crate) fn keep_in(&self, parking: &Arc<Parking>) {
        if parking.keeps() {
            let _ = self.parking.set(Arc::clone(parking));
        }
    }

    /// Whether a stopped handler is kept for the retry (see [`keep_in`](Self::keep_in)).
    pub(crate) fn keeps(&self) -> bool {
        self.parking.get().is_some()
    }

    /// Keeps the stopped handler (its `context` and `work`) for the retry, under the ticket
    /// its last state names; `false` when it cannot be kept (then it is dropped).
    pub(crate) fn keep<W: Send + 'static>(&self, context: Context, work: W) -> bool {
        let (Some(parking), Some(ticket)) = (self.parking.get(), lock(&self.ticket).take()) else { return false };
        parking.keep(ticket, self.state.get().clone(), context, work)
    }

    /// The handler this retry's state says is kept for it, taken back from `parking` when this
    /// instance holds it.
    pub(crate) fn resumed<W: 'static>(&self, parking: &Parking) -> Option<Resumed<W>> {
        parking.take(self.resumes?, self.state.get())
    }

    /// The answers this round holds.
    pub(crate) fn answers(&self) -> Map<String, Value> {
        lock(&self.answers).clone()
    }

    /// A retry brought `answers` for the handler kept waiting on this round: the questions
    /// they answer return; those still unanswered are asked again at once.
    pub(crate) fn supply(&self, answers: Map<String, Value>) {
        lock(&self.answers).extend(answers);
        let unanswered: Map<String, Value> = lock(&self.waiting)
            .iter()
            .filter(|(key, _)| self.answer(key).is_none())
            .map(|(key, request)| (key.clone(), request.clone()))
            .collect();
        if !unanswered.is_empty() {
            self.ask(unanswered);
        }
        self.supplied.notify_waiters();
    }
}
