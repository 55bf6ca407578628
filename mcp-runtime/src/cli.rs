//! The standard command line as a part of a program's own (feature `cli`): a server that
//! needs a flag of its own (`--db PATH`) or [`HttpOptions`] of its own (bearer
//! authentication, allowed hosts) flattens [`ServeArgs`] into its `clap` parser and calls
//! [`Server::run_with`], keeping `--stdio`, `--http`, `--list`, `--card` and, with feature `oauth`,
//! `--oauth-issuer` as [`Server::run`] has them (the same names and help: one definition
//! serves both). `--help` and `--version` are the program's parser's.
//!
//! ```no_run
//! use clap::Parser;
//! use mcp_runtime::cli::ServeArgs;
//! use mcp_runtime::http::{Allowed, HttpOptions};
//! use mcp_runtime::Server;
//!
//! /// A bookmarks server.
//! #[derive(Parser)]
//! #[command(version)]
//! struct Cli {
//!     /// Where the bookmarks are kept.
//!     #[arg(long, value_name = "PATH", default_value = "bookmarks.db")]
//!     db: String,
//!     #[command(flatten)]
//!     serve: ServeArgs,
//! }
//!
//! fn main() -> mcp_runtime::Result<()> {
//!     let cli = Cli::parse();
//!     let options = HttpOptions::default().allowed_hosts(Allowed::Only(vec!["mcp.example.com".into()]));
//!     Server::new("bookmarks", "1.0.0").state(cli.db).run_with(cli.serve, options)
//! }
//! ```

use crate::command_line::{CARD, Command, HTTP, HttpFlags, LIST, PUBLIC_URL, Print, STDIO, Transport};
use crate::protocol::Revision;
use crate::transport::http::HttpOptions;
use crate::{Error, Result, Server};

/// The standard command line's flags, to flatten into a `clap` parser
/// (`#[command(flatten)] serve: ServeArgs`); see the [module documentation](self).
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct ServeArgs {
    /// `--stdio`: serve one client on standard input and output (also what no flag means).
    #[arg(long = STDIO.long, help = STDIO.help, conflicts_with_all = ["http", "list"])]
    pub stdio: bool,
    /// `--http ADDR`: serve Streamable HTTP at `http://ADDR/mcp`.
    #[arg(long = HTTP.long, value_name = "ADDR", help = HTTP.help, conflicts_with = "list")]
    pub http: Option<String>,
    /// `--public-url URL`: with `--http`, the URL clients reach the server at, behind a proxy
    /// (see [`HttpOptions::public_url`]).
    #[arg(long = PUBLIC_URL.long, value_name = "URL", help = PUBLIC_URL.help, requires = "http")]
    pub public_url: Option<String>,
    /// `--oauth-issuer URL` (feature `oauth`): with `--http`, accept only that issuer's JWT
    /// access tokens.
    #[cfg(feature = "oauth")]
    #[arg(long = crate::command_line::OAUTH_ISSUER.long, value_name = "URL", help = crate::command_line::OAUTH_ISSUER.help, requires = "http")]
    pub oauth_issuer: Option<String>,
    /// `--metrics ADDR` (feature `telemetry`): with `--http`, serve the metrics at
    /// `http://ADDR/metrics`, apart from the MCP endpoint.
    #[cfg(feature = "telemetry")]
    #[arg(long = crate::command_line::METRICS.long, value_name = "ADDR", help = crate::command_line::METRICS.help, requires = "http")]
    pub metrics: Option<String>,
    /// `--list [REVISION]`: print what the server declares, as a client of `REVISION` (by
    /// default the latest) sees it, and exit.
    #[arg(long = LIST.long, value_name = "REVISION", help = LIST.help, num_args = 0..=1,
          default_missing_value = Revision::LATEST.as_str())]
    pub list: Option<String>,
    /// `--card`: print the Server Card and exit; with `--http` (and `--public-url`,
    /// `--oauth-issuer`), the card serving would publish.
    #[arg(long = CARD.long, help = CARD.help, conflicts_with_all = ["list", "stdio"])]
    pub card: bool,
}

// `serve: ServeArgs` without `#[command(flatten)]` makes clap read the field as one value,
// through this factory. Its parser is no parser, named for the fix, and the impl the compiler
// shows as the near miss says it in a comment, so that the one error, at the field, says what
// to write (without it, clap lists seven bounds `ServeArgs` does not meet).
impl clap::builder::ValueParserFactory for ServeArgs {
    type Parser = ServeArgsNeedsCommandFlatten<ServeArgs>;

    fn value_parser() -> Self::Parser {
        ServeArgsNeedsCommandFlatten(std::marker::PhantomData)
    }
}

/// What clap is given for a `ServeArgs` field written without `#[command(flatten)]`: not a
/// parser, so that such a program does not compile, and the error names the fix.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct ServeArgsNeedsCommandFlatten<T>(std::marker::PhantomData<T>);

/// Met by no type: see [`ServeArgsNeedsCommandFlatten`].
#[doc(hidden)]
pub trait OneValue {}

impl<T> clap::builder::TypedValueParser for ServeArgsNeedsCommandFlatten<T>
where
    T: OneValue + Clone + Send + Sync + 'static, // `ServeArgs` is a group of flags: write `#[command(flatten)]` above the field
{
    type Value = T;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        _value: &std::ffi::OsStr,
    ) -> std::result::Result<T, clap::Error> {
        unreachable!("`OneValue` has no implementation: this is a bug")
    }
}

impl ServeArgs {
    /// What these flags ask for, as [`Server::run`]'s parser would read them.
    fn command(&self) -> std::result::Result<Command, String> {
        if let Some(revision) = &self.list {
            let revision =
                Revision::parse(revision).ok_or_else(|| format!("`--list {revision}`: not a protocol revision"))?;
            return Ok(Command::Print(Print::List(revision)));
        }
        #[cfg(feature = "oauth")]
        let oauth_issuer = self.oauth_issuer.clone();
        #[cfg(not(feature = "oauth"))]
        let oauth_issuer = None;
        #[cfg(feature = "telemetry")]
        let metrics = self.metrics.clone();
        #[cfg(not(feature = "telemetry"))]
        let metrics = None;
        if self.card {
            let endpoint =
                self.public_url.clone().or_else(|| self.http.as_ref().map(|addr| format!("http://{addr}/mcp")));
            return Ok(Command::Print(Print::Card { endpoint, authorization: oauth_issuer.is_some() }));
        }
        let flags = HttpFlags { public_url: self.public_url.clone(), oauth_issuer, metrics };
        Ok(Command::Serve(match &self.http {
            Some(addr) => Transport::Http { addr: addr.clone(), flags },
            None => Transport::Stdio,
        }))
    }
}

impl Server {
    /// Serves as `args` say (flattened into the program's own `clap` parser), as
    /// [`run`](Self::run) does with the command line, serving HTTP with `options`:
    /// `--public-url` sets their [`public_url`](HttpOptions::public_url), `--oauth-issuer`
    /// their authorization (a JWT verifier of that issuer's). A flag that says otherwise than
    /// `options` (another public URL, an authorization already there) stops the start with an
    /// error naming both. See [`cli`](crate::cli).
    pub fn run_with(self, args: ServeArgs, options: HttpOptions) -> Result<()> {
        let command = args.command().map_err(Error::Usage)?;
        self.block_on(command, crate::entry::program::GivenOptions { http: Some(options) })
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::command_line;

    /// A program's own parser, with a flag of its own.
    #[derive(Debug, Parser)]
    struct Cli {
        #[arg(long)]
        db: Option<String>,
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn command(args: &[&str]) -> std::result::Result<Command, String> {
        let cli =
            Cli::try_parse_from(std::iter::once("bookmarks").chain(args.iter().copied())).map_err(|e| e.to_string())?;
        cli.serve.command()
    }

    #[test]
    fn the_flags_are_the_standard_command_line_s() {
        let parser = Cli::command();
        for flag in command_line::flags() {
            let arg = parser.get_arguments().find(|a| a.get_long() == Some(flag.long));
            let arg = arg.unwrap_or_else(|| panic!("--{} is not declared", flag.long));
            assert_eq!(arg.get_help().map(ToString::to_string).as_deref(), Some(flag.help), "--{}", flag.long);
            match flag.value {
                Some(value) => {
                    let name = arg.get_value_names().and_then(|v| v.first()).map(ToString::to_string);
                    assert_eq!(name.as_deref(), Some(value.trim_matches(['[', ']'])), "--{}", flag.long);
                }
                None => assert!(!arg.get_action().takes_values(), "--{} takes no value", flag.long),
            }
            let usage = command_line::usage("bookmarks", "bookmarks", "1");
            assert!(usage.contains(&format!("--{}", flag.long)), "{usage}");
        }
        let ours: Vec<_> = parser.get_arguments().filter_map(|a| a.get_long()).filter(|l| *l != "db").collect();
        let table: Vec<_> = command_line::flags().iter().map(|f| f.long).collect();
        assert_eq!(ours, table, "ServeArgs declares the standard flags, no more");
    }

    #[test]
    fn flattened_flags_read_as_run_reads_them() {
        assert_eq!(command(&["--db", "b.db"]), Ok(Command::Serve(Transport::Stdio)));
        assert_eq!(command(&["--stdio"]), Ok(Command::Serve(Transport::Stdio)));
        let http = Transport::Http { addr: "127.0.0.1:0".into(), flags: HttpFlags::default() };
        assert_eq!(command(&["--http", "127.0.0.1:0", "--db", "b.db"]), Ok(Command::Serve(http)));
        assert_eq!(command(&["--list"]), Ok(Command::Print(Print::List(Revision::LATEST))));
        assert_eq!(command(&["--list", "2024-11-05"]), Ok(Command::Print(Print::List(Revision::V2024_11_05))));
        assert!(command(&["--list", "1999-01-01"]).unwrap_err().contains("not a protocol revision"));
        assert!(command(&["--stdio", "--http", "127.0.0.1:0"]).unwrap_err().contains("cannot be used with"));
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn an_oauth_issuer_needs_http() {
        let issuer = Some("https://as.example".to_owned());
        let http = Transport::Http {
            addr: "127.0.0.1:0".into(),
            flags: HttpFlags { oauth_issuer: issuer, ..HttpFlags::default() },
        };
        assert_eq!(
            command(&["--http", "127.0.0.1:0", "--oauth-issuer", "https://as.example"]),
            Ok(Command::Serve(http))
        );
        assert!(command(&["--oauth-issuer", "https://as.example"]).unwrap_err().contains("--http"));
    }
}
