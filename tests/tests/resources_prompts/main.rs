//! Resources, resource templates, prompts, completions, subscriptions and dynamic lists (items
//! enabled, disabled, added and removed while the server runs) on the wire, under every
//! revision: the four handshake revisions through `initialize`, and 2026-07-28 with
//! `params._meta` on every request. The servers are `manual --test-items` (see
//! `examples/manual/test_items.rs`) and GiftGen, over stdio. Each server run records its
//! transcript under `<target>/transcripts/<revision>/<test>.jsonl` for
//! `shared/tools/schema_check.py`.
//!
//! One module per feature, in one binary (each test binary links the whole dependency graph);
//! `common` holds the connection they all drive. One feature alone:
//! `cargo test -p mcp-tests --test resources_prompts subscriptions::`.

mod common;
mod completion;
mod gift_genius;
mod list_changes;
mod lists;
mod prompts;
mod reading;
mod subscriptions;
