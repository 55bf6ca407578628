use std::cell::RefCell;

use mcp_runtime::{State, mcp_tool};

/// A connection that one thread at a time may use, as `rusqlite::Connection` is.
struct Db(RefCell<Vec<String>>);

/// Counts the rows.
#[mcp_tool]
fn rows(db: State<Db>) -> String {
    db.0.borrow().len().to_string()
}

fn main() {}
