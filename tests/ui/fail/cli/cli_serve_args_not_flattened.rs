use clap::Parser;
use mcp_runtime::cli::ServeArgs;

/// The notes server.
#[derive(Parser)]
struct Cli {
    /// Where the notes are kept.
    #[arg(long)]
    notes: String,
    serve: ServeArgs,
}

fn main() {
    let _cli = Cli::parse();
}
