//! Serving one connection: the session takes each message in arrival order and decides its
//! era, the route table decides everything about its method, the executor runs the work, and
//! the methods answer.

pub(crate) mod admit;
pub(crate) mod arrival;
pub(crate) mod executor;
pub(crate) mod here;
pub(crate) mod intake;
pub(crate) mod layered;
pub(crate) mod methods;
pub(crate) mod reply;
pub(crate) mod request;
pub(crate) mod routes;
pub(crate) mod session;
#[cfg(feature = "http")]
pub(crate) mod stateless;
pub(crate) mod subscriptions;
#[cfg(test)]
mod tests;
