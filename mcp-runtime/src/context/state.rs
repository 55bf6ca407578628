//! Application state: values registered once with [`Server::state`](crate::Server::state)
//! and handed to every handler that takes a [`State<T>`] parameter.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A value the server shares with its handlers: a database pool, a configuration read at
/// start-up, a cache. Register it with [`Server::state`](crate::Server::state); a tool,
/// resource or prompt takes it as a `State<T>` parameter (which is not an argument: it never
/// appears in a schema). A handler asking for a type nobody registered stops the server at
/// start-up, naming the handler and the type.
///
/// Cloning is cheap (an `Arc`); `State<T>` dereferences to `T`.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::State;
///
/// struct Greeting(String);
///
/// /// Greets someone with the configured greeting.
/// #[mcp_tool]
/// async fn greet(greeting: State<Greeting>, name: String) -> String {
///     format!("{}, {name}!", greeting.0)
/// }
///
/// let server = Server::builder("greeter", "1.0.0")
///     .state(Greeting("Hello".into()))
///     .tool(greet);
/// assert!(server.validate().is_ok());
///
/// // Handlers stay plain functions: call one directly in a unit test.
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert_eq!(greet(State::new(Greeting("Hi".into())), "Ada".into()).await, "Hi, Ada!");
/// # });
/// ```
pub struct State<T: ?Sized>(Arc<T>);

impl<T> State<T> {
    /// Wraps a value (for calling a handler directly, in a test).
    pub fn new(value: T) -> Self {
        State(Arc::new(value))
    }
}

impl<T: ?Sized> State<T> {
    /// Wraps a shared value.
    pub fn from_arc(value: Arc<T>) -> Self {
        State(value)
    }

    /// The shared value.
    pub fn arc(&self) -> &Arc<T> {
        &self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// What makes a state anew for each session.
type Factory = Arc<dyn Fn() -> Arc<dyn Any + Send + Sync> + Send + Sync>;

/// The registered states, by type, and the states made anew for each session; and those of
/// each mounted server, which its items see instead.
#[derive(Clone, Default)]
pub(crate) struct States {
    by_type: HashMap<TypeId, (Arc<dyn Any + Send + Sync>, &'static str)>,
    per_session: Vec<(TypeId, &'static str, Factory)>,
    /// The states of the servers mounted in this one, by mount (`Server::mount`).
    mounted: Vec<Arc<States>>,
}

impl fmt::Debug for States {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per_session = self.per_session.iter().map(|(_, name, _)| name);
        f.debug_list().entries(self.by_type.values().map(|(_, name)| name).chain(per_session)).finish()
    }
}

impl States {
    /// Registers `value`, replacing an earlier value (or factory) of the same type.
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.per_session.retain(|(id, _, _)| *id != TypeId::of::<T>());
        self.by_type.insert(TypeId::of::<T>(), (Arc::new(value), std::any::type_name::<T>()));
    }

    /// Registers `factory`, called for each session to make its own value of type `T`,
    /// replacing an earlier value (or factory) of the same type.
    pub(crate) fn insert_per_session<T: Send + Sync + 'static>(
        &mut self,
        factory: impl Fn() -> T + Send + Sync + 'static,
    ) {
        self.by_type.remove(&TypeId::of::<T>());
        self.per_session.retain(|(id, _, _)| *id != TypeId::of::<T>());
        let factory: Factory = Arc::new(move || Arc::new(factory()) as Arc<dyn Any + Send + Sync>);
        self.per_session.push((TypeId::of::<T>(), std::any::type_name::<T>(), factory));
    }

    /// The states a new session sees, when they differ from these: these, with a value of each
    /// per-session state made now (a mounted server's too). `None` without per-session states
    /// (the session sees these, at no cost).
    pub(crate) fn for_session(&self) -> Option<Arc<Self>> {
        if !self.made_per_session() {
            return None;
        }
        let mut by_type = self.by_type.clone();
        for (id, name, factory) in &self.per_session {
            by_type.insert(*id, (factory(), name));
        }
        let mounted = self.mounted.iter().map(|m| m.for_session().unwrap_or_else(|| Arc::clone(m))).collect();
        Some(Arc::new(States { by_type, per_session: Vec::new(), mounted }))
    }

    /// Whether a session makes values of its own, here or in a mounted server.
    fn made_per_session(&self) -> bool {
        !self.per_session.is_empty() || self.mounted.iter().any(|m| m.made_per_session())
    }

    /// Keeps `states` as those of the next mounted server; its mount number.
    pub(crate) fn mount(&mut self, states: States) -> usize {
        self.mounted.push(Arc::new(states));
        self.mounted.len() - 1
    }

    /// The states of mount `at`, when there is one.
    fn mount_at(&self, at: Option<usize>) -> Option<&Arc<States>> {
        at.and_then(|at| self.mounted.get(at))
    }

    /// The states of mount `at`, or these.
    pub(crate) fn of_mount(&self, at: Option<usize>) -> &States {
        self.mount_at(at).map_or(self, |mounted| mounted)
    }

    /// The states an item sees: those of the server it was mounted from, else these.
    pub(crate) fn seen_by(self: &Arc<Self>, mounted: Option<usize>) -> &Arc<Self> {
        self.mount_at(mounted).unwrap_or(self)
    }

    /// The registered value of type `T`.
    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        let (value, _) = self.by_type.get(&TypeId::of::<T>())?;
        Arc::clone(value).downcast::<T>().ok().map(State)
    }

    pub(crate) fn contains(&self, required: &RequiredState) -> bool {
        self.by_type.contains_key(&required.type_id)
            || self.per_session.iter().any(|(id, _, _)| *id == required.type_id)
    }

    /// A registered type that `required` (missing) differs from by one wrapper: `Arc<T>`
    /// registered where `T` is taken, `T` where `Mutex<T>` is, `Arc<T>` where `Mutex<T>` is.
    pub(crate) fn near_miss(&self, required: &RequiredState) -> Option<&'static str> {
        let wanted = required.type_name;
        let per_session = self.per_session.iter().map(|(_, name, _)| *name);
        let mut names: Vec<&'static str> = self.by_type.values().map(|(_, name)| *name).chain(per_session).collect();
        names.sort_unstable();
        names.into_iter().find(|registered| {
            let (inner_registered, inner_wanted) = (wrapped(registered), wrapped(wanted));
            inner_registered == Some(wanted)
                || inner_wanted == Some(*registered)
                || inner_registered.is_some() && inner_registered == inner_wanted
        })
    }
}

/// `T` when `name` is a type name of one generic argument, `Wrapper<T>`.
fn wrapped(name: &str) -> Option<&str> {
    let inner = name.strip_suffix('>')?.split_once('<')?.1;
    let mut depth = 0_i32;
    for c in inner.chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => return None,
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    (depth == 0).then_some(inner)
}

/// A state type a handler takes: checked at start-up.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct RequiredState {
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
}

impl RequiredState {
    pub(crate) fn of<T: 'static>() -> Self {
        RequiredState { type_id: TypeId::of::<T>(), type_name: std::any::type_name::<T>() }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::{RequiredState, States, wrapped};

    struct Db;

    #[test]
    fn a_wrapper_of_one_argument_is_seen_through() {
        assert_eq!(wrapped("alloc::sync::Arc<app::Db>"), Some("app::Db"));
        assert_eq!(wrapped("a::Arc<b::Mutex<c::Db>>"), Some("b::Mutex<c::Db>"));
        assert_eq!(wrapped("std::collections::HashMap<a::K, a::V>"), None);
        assert_eq!(wrapped("a::Arc<(a::X, a::Y)>"), Some("(a::X, a::Y)"));
        assert_eq!(wrapped("app::Db"), None);
    }

    #[test]
    fn each_session_gets_its_own_value_of_a_per_session_state() {
        use std::sync::atomic::{AtomicU32, Ordering};
        let made = Arc::new(AtomicU32::new(0));
        let counting = Arc::clone(&made);
        let mut states = States::default();
        states.insert(7_u32);
        states.insert_per_session(move || Mutex::new(counting.fetch_add(1, Ordering::SeqCst)));
        assert!(states.contains(&RequiredState::of::<Mutex<u32>>()));
        assert!(states.get::<Mutex<u32>>().is_none(), "no session, no value");
        let (first, second) = (states.for_session().expect("its own"), states.for_session().expect("its own"));
        assert_eq!(made.load(Ordering::SeqCst), 2, "one value per session");
        let value = |s: &States| *s.get::<Mutex<u32>>().expect("made").lock().expect("not poisoned");
        assert_eq!((value(&first), value(&second)), (0, 1));
        assert_eq!(*first.get::<u32>().expect("shared"), 7);
        assert!(States::default().for_session().is_none(), "nothing made without factories");
    }

    #[test]
    fn the_near_miss_differs_by_one_wrapper() {
        let mut states = States::default();
        states.insert(Arc::new(Db));
        states.insert(7_u32);
        assert_eq!(states.near_miss(&RequiredState::of::<Db>()), Some(std::any::type_name::<Arc<Db>>()));
        assert_eq!(states.near_miss(&RequiredState::of::<Mutex<Db>>()), Some(std::any::type_name::<Arc<Db>>()));
        assert_eq!(states.near_miss(&RequiredState::of::<String>()), None);
        let mut states = States::default();
        states.insert(Db);
        assert_eq!(states.near_miss(&RequiredState::of::<Arc<Db>>()), Some(std::any::type_name::<Db>()));
    }
}
