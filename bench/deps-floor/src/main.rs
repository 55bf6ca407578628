//! Nothing: the package exists for its dependencies (see its manifest).

fn main() {}
