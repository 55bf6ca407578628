//! A server once declared: the builder, the immutable core every connection shares, the
//! registry of items, the handle that changes it while serving, and the change bus.

pub(crate) mod build;
pub(crate) mod builder;
pub(crate) mod card;
pub(crate) mod changes;
pub(crate) mod core;
pub(crate) mod handle;
pub(crate) mod instance;
pub(crate) mod local;
pub(crate) mod mount;
pub(crate) mod mounts;
pub(crate) mod registry;
