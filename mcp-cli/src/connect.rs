//! From the command line to a connected [`Client`]: the target (a URL, or a command after
//! `--`), the era, the headers and credentials.

use std::time::Duration;

use mcp_runtime::client::{Client, ClientBuilder, Era, OAuth, Stderr};
use mcp_runtime::protocol::Revision;

use crate::args::{Connect, OAuthArgs};
use crate::oauth_browser;

/// Why a subcommand ended without success: the command line was wrong (exit status 2), or
/// what it asked for failed (exit status 1).
#[derive(Debug)]
pub(crate) enum Failure {
    Usage(String),
    Failed(String),
}

impl Failure {
    pub(crate) fn failed(message: impl std::fmt::Display) -> Failure {
        Failure::Failed(message.to_string())
    }
}

/// The server a subcommand talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A Streamable HTTP endpoint.
    Http(String),
    /// A command to run, spoken to over its stdin and stdout.
    Stdio(Vec<String>),
}

impl Target {
    /// Reads the target from the subcommand's positional arguments and the command after
    /// `--`, returning the positional arguments left over.
    pub(crate) fn read<'a>(positional: &'a [String], connect: &Connect) -> Result<(Target, &'a [String]), Failure> {
        if !connect.command.is_empty() {
            if let Some(url) = positional.first().filter(|p| is_url(p)) {
                return Err(Failure::Usage(format!(
                    "two servers given: the URL `{url}` and the command after `--`; keep one"
                )));
            }
            return Ok((Target::Stdio(connect.command.clone()), positional));
        }
        match positional.split_first() {
            Some((url, rest)) if is_url(url) => Ok((Target::Http(url.clone()), rest)),
            Some((other, _)) => Err(Failure::Usage(format!(
                "`{other}` is not a server: give its URL (http:// or https://), or its command after \
                 `--` (as in `mcp inspect -- ./target/debug/my_server`)"
            ))),
            None => Err(Failure::Usage(
                "no server given: give its URL, or its command after `--` (as in `mcp inspect -- \
                 ./target/debug/my_server`)"
                    .to_owned(),
            )),
        }
    }

    /// The target as a person reads it.
    pub(crate) fn describe(&self) -> String {
        match self {
            Target::Http(url) => format!("{url} (Streamable HTTP)"),
            Target::Stdio(command) => format!("`{}` (stdio)", command.join(" ")),
        }
    }
}

fn is_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://")
}

/// Reads `--era`: `auto`, `handshake`, `2026-07-28`, or one handshake revision.
pub(crate) fn era(name: &str) -> Result<(Era, Option<Revision>), Failure> {
    match name {
        "auto" => Ok((Era::Auto, None)),
        "handshake" => Ok((Era::Handshake, None)),
        "stateless" => Ok((Era::Stateless, None)),
        _ => match Revision::parse(name) {
            Some(Revision::V2026_07_28) => Ok((Era::Stateless, None)),
            Some(revision) => Ok((Era::Handshake, Some(revision))),
            None => Err(Failure::Usage(format!(
                "`--era {name}`: say `auto`, `handshake`, `2026-07-28`, or one of {}",
                Revision::HANDSHAKE.map(Revision::as_str).join(", ")
            ))),
        },
    }
}

/// The request timeout `--timeout` asks for.
pub(crate) fn timeout(connect: &Connect) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(connect.timeout)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| Failure::Usage(format!("`--timeout {}`: give a positive number of seconds", connect.timeout)))
}

/// A client builder configured as the command line says, before its handlers are added.
pub(crate) fn builder(connect: &Connect) -> Result<ClientBuilder, Failure> {
    let (era, revision) = era(&connect.era)?;
    let mut builder = Client::builder().name("mcp", env!("CARGO_PKG_VERSION")).era(era).timeout(timeout(connect)?);
    if let Some(revision) = revision {
        builder = builder.revision(revision);
    }
    for header in &connect.headers {
        let (name, value) = header_pair(header)?;
        builder = builder.header(name, value);
    }
    if let Some(token) = &connect.bearer {
        builder = builder.bearer(token.clone());
    }
    if let Some(oauth) = oauth(&connect.oauth)? {
        builder = builder.oauth(oauth);
    }
    Ok(builder)
}

/// Connects `builder` to `target`.
pub(crate) async fn connect(builder: ClientBuilder, target: &Target) -> Result<Client, Failure> {
    let connected = match target {
        Target::Http(url) => builder.http(url).await,
        Target::Stdio(command) => {
            let mut process = tokio::process::Command::new(&command[0]);
            process.args(&command[1..]);
            builder.stderr(Stderr::PassThrough).stdio(process).await
        }
    };
    connected.map_err(|e| Failure::Failed(format!("cannot connect to {}: {e}", target.describe())))
}

/// Reads `--header "Name: value"`, checking that both halves can be an HTTP header.
pub(crate) fn header_pair(header: &str) -> Result<(&str, &str), Failure> {
    let usage = |why: &str| Failure::Usage(format!("`--header {header}`: {why}; write it as `Name: value`"));
    let (name, value) = header.split_once(':').ok_or_else(|| usage("no `:`"))?;
    let (name, value) = (name.trim(), value.trim());
    // HTTP's own rules, as the client will apply them (its builder refuses what they refuse).
    if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(usage("not a header name"));
    }
    if reqwest::header::HeaderValue::from_str(value).is_err() {
        return Err(usage("a control character in the value"));
    }
    Ok((name, value))
}

fn oauth(args: &OAuthArgs) -> Result<Option<OAuth>, Failure> {
    let key = match &args.oauth_key {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| Failure::Usage(format!("`--oauth-key {}`: cannot read it: {e}", path.display())))?,
        ),
        None => None,
    };
    let oauth = match (args.oauth, &args.oauth_client_id) {
        (true, client_id) => {
            let (redirect_uri, user_agent) = oauth_browser::loopback().map_err(Failure::Failed)?;
            let oauth = OAuth::authorization_code(redirect_uri, user_agent).client_name("mcp");
            match client_id {
                Some(id) => oauth.pre_registered(id.clone(), args.oauth_client_secret.clone()),
                None => oauth,
            }
        }
        (false, Some(id)) => match (&key, &args.oauth_client_secret) {
            (Some(pem), _) => OAuth::client_credentials_jwt(id.clone(), pem)
                .map_err(|e| Failure::Usage(format!("`--oauth-key`: {e}")))?,
            (None, Some(secret)) => OAuth::client_credentials(id.clone(), secret.clone()),
            (None, None) => {
                return Err(Failure::Usage(
                    "`--oauth-client-id` needs `--oauth-client-secret` or `--oauth-key` (client \
                     credentials), or `--oauth` (in a browser)"
                        .to_owned(),
                ));
            }
        },
        (false, None) if key.is_some() || args.oauth_client_secret.is_some() => {
            return Err(Failure::Usage("a client secret or key needs `--oauth-client-id`".to_owned()));
        }
        (false, None) => return Ok(None),
    };
    Ok(Some(if args.oauth_scopes.is_empty() { oauth } else { oauth.scopes(args.oauth_scopes.clone()) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connect(command: &[&str]) -> Connect {
        use clap::Parser;
        #[derive(Parser)]
        struct Only {
            #[command(flatten)]
            connect: Connect,
        }
        let mut args = vec!["mcp"];
        if !command.is_empty() {
            args.push("--");
            args.extend(command);
        }
        Only::parse_from(args).connect
    }

    #[test]
    fn the_target_is_a_url_or_the_command_after_the_dashes() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let call = words(&["http://h/mcp", "add", "a=1"]);
        let (target, rest) = Target::read(&call, &connect(&[])).unwrap();
        assert_eq!(target, Target::Http("http://h/mcp".into()));
        assert_eq!(rest, words(&["add", "a=1"]));
        let call = words(&["add", "a=1"]);
        let (target, rest) = Target::read(&call, &connect(&["./server", "--stdio"])).unwrap();
        assert_eq!(target, Target::Stdio(words(&["./server", "--stdio"])));
        assert_eq!(rest, words(&["add", "a=1"]));
        assert!(
            matches!(Target::read(&call, &connect(&[])), Err(Failure::Usage(m)) if m.contains("`add` is not a server"))
        );
        assert!(matches!(Target::read(&[], &connect(&[])), Err(Failure::Usage(m)) if m.contains("no server")));
    }

    #[test]
    fn eras_and_headers_are_read_or_refused_with_the_form_to_write() {
        assert_eq!(era("2025-06-18").unwrap(), (Era::Handshake, Some(Revision::V2025_06_18)));
        assert_eq!(era("2026-07-28").unwrap(), (Era::Stateless, None));
        assert!(matches!(era("2099-01-01"), Err(Failure::Usage(m)) if m.contains("2024-11-05")));
        assert_eq!(header_pair("X-Team: gifts").unwrap(), ("X-Team", "gifts"));
        assert!(matches!(header_pair("X Team gifts"), Err(Failure::Usage(m)) if m.contains("Name: value")));
        assert!(matches!(header_pair("X Team: gifts"), Err(Failure::Usage(m)) if m.contains("not a header name")));
    }
}
