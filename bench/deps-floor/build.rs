//! Empty: it makes Cargo build the build-dependencies, which stand for the macros' (a
//! proc-macro's dependencies are built with the build scripts' profile).

fn main() {}
