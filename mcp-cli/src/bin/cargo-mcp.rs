//! `cargo mcp ...`: cargo runs this binary as `cargo-mcp mcp ...`; the `mcp` it adds is
//! dropped and the rest is `mcp`'s command line.

fn main() -> std::process::ExitCode {
    let mut args: Vec<_> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "mcp") {
        args.remove(1);
    }
    if let Some(program) = args.first_mut() {
        *program = "cargo mcp".into();
    }
    mcp_cli::main(args)
}
