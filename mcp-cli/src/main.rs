//! `mcp`: see `mcp --help`.

fn main() -> std::process::ExitCode {
    mcp_cli::main(std::env::args_os())
}
