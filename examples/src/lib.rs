//! The examples live under `examples/<name>/`; this library is empty.
