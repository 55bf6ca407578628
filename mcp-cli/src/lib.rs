//! The `mcp` command: inspect, call and diagnose any MCP server, develop one with hot reload,
//! start a new one. The binaries `mcp` and `cargo-mcp` (for `cargo mcp ...`) are this
//! library's [`main`]; each subcommand is a module.
//!
//! ```no_run
//! // What `mcp inspect -- ./target/debug/gift_genius` does:
//! let status = mcp_cli::main(["mcp", "inspect", "--", "./target/debug/gift_genius"]);
//! # let _ = status;
//! ```

mod args;
mod call;
mod connect;
mod dev;
mod doctor;
mod form;
mod inspect;
mod new;
mod oauth_browser;
mod output;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};
use connect::Failure;

/// Runs the command line `args` (the program's name first) and returns its exit status: 0
/// when it succeeded, 1 when what it asked for failed, 2 when the command line was wrong.
pub fn main<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(run(cli.command));
    // A spawned server or a stuck read must not keep the command from ending.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Failed(message)) => {
            if !message.is_empty() {
                eprintln!("error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Inspect { positional, connect } => inspect::run(&positional, &connect).await,
        Command::Call { positional, save_media, ask, connect } => {
            call::call(&positional, save_media.as_deref(), &ask, &connect).await
        }
        Command::Read { positional, save_media, connect } => {
            call::read(&positional, save_media.as_deref(), &connect).await
        }
        Command::Get { positional, ask, connect } => call::get(&positional, &ask, &connect).await,
        Command::Complete { positional, connect } => call::complete(&positional, &connect).await,
        Command::Doctor { list_checks: true, connect, .. } => {
            doctor::list_checks(connect.json);
            Ok(())
        }
        Command::Doctor { positional, connect, .. } => doctor::run(&positional, &connect).await,
        Command::Dev(args) => dev::run(args).await,
        Command::New { name, path, runtime_path, json } => {
            new::run(&name, path.as_deref(), runtime_path.as_deref(), json)
        }
    }
}
