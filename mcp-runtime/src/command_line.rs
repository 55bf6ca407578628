//! The command line a server binary accepts when it starts with [`Server::run`]: parsing and
//! the usage text. Kept apart from serving so that a bad argument is reported before any
//! runtime, thread or socket exists.
//!
//! [`Server::run`]: crate::Server::run

use crate::protocol::Revision;

/// A flag of the standard command line, defined once: what [`parse`] matches, what [`usage`]
/// shows, and what `cli::ServeArgs` declares (feature `cli`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Flag {
    /// The name after `--`.
    pub(crate) long: &'static str,
    /// What follows it in the usage text (` ADDR`, ` [REVISION]`), if it takes a value.
    pub(crate) value: Option<&'static str>,
    /// What it does.
    pub(crate) help: &'static str,
}

/// `--stdio`.
pub(crate) const STDIO: Flag =
    Flag { long: "stdio", value: None, help: "serve one client on standard input and output (the default)" };
/// `--http ADDR`.
pub(crate) const HTTP: Flag =
    Flag { long: "http", value: Some("ADDR"), help: "serve Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:3000)" };
/// `--public-url URL`.
pub(crate) const PUBLIC_URL: Flag = Flag {
    long: "public-url",
    value: Some("URL"),
    help: "with --http: the URL clients reach the server at, behind a proxy (https://mcp.example.com/mcp): the \
           audience of its tokens, the resource its metadata names and the one Host it accepts",
};
/// `--metrics ADDR`.
pub(crate) const METRICS: Flag = Flag {
    long: "metrics",
    value: Some("ADDR"),
    help: "with --http: serve the metrics as Prometheus text at http://ADDR/metrics, apart from the MCP endpoint \
           (by default they are served beside it only when it listens on loopback)",
};
/// `--oauth-issuer URL`.
pub(crate) const OAUTH_ISSUER: Flag = Flag {
    long: "oauth-issuer",
    value: Some("URL"),
    help: "with --http: accept only JWT access tokens URL issued for http://ADDR/mcp (an OAuth 2.1 protected resource)",
};
/// `--list [REVISION]`.
pub(crate) const LIST: Flag = Flag {
    long: "list",
    value: Some("[REVISION]"),
    help: "print the tools, resources and prompts with their schemas as a client of REVISION sees them, and exit",
};

/// `--card`.
pub(crate) const CARD: Flag = Flag {
    long: "card",
    value: None,
    help: "print the Server Card (`Server::server_card`) and exit; with --http (and --public-url, --oauth-issuer): \
           the card that serving would publish at http://ADDR/mcp/server-card",
};

/// The flags this build accepts, in the order the usage text lists them.
pub(crate) fn flags() -> Vec<Flag> {
    let mut flags = vec![STDIO];
    if cfg!(feature = "http") {
        flags.push(HTTP);
        flags.push(PUBLIC_URL);
    }
    if cfg!(feature = "oauth") {
        flags.push(OAUTH_ISSUER);
    }
    if cfg!(all(feature = "http", feature = "telemetry")) {
        flags.push(METRICS);
    }
    flags.push(LIST);
    flags.push(CARD);
    flags
}

/// What the command line asks the server binary to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    /// Serve clients on a transport.
    Serve(Transport),
    /// Print something and exit, without starting anything.
    Print(Print),
}

/// Where to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Transport {
    /// One client on standard input and output (also what no argument means).
    Stdio,
    /// Streamable HTTP at `addr`, as the flags that go with `--http` say.
    #[cfg(feature = "http")]
    Http { addr: String, flags: HttpFlags },
}

/// What the flags that go with `--http` say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HttpFlags {
    /// `--public-url`: the URL clients reach the server at.
    pub(crate) public_url: Option<String>,
    /// `--oauth-issuer` (feature `oauth`): the server is a protected resource of that issuer's.
    pub(crate) oauth_issuer: Option<String>,
    /// `--metrics` (feature `telemetry`): where the metrics are served, apart.
    pub(crate) metrics: Option<String>,
}

/// What to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Print {
    /// What the server declares, as a client of this revision sees it.
    List(Revision),
    /// The usage text.
    Help,
    /// The name and version.
    Version,
    /// The Server Card: for the endpoint at this URL (if any), naming the `Authorization`
    /// header when authorization is on.
    Card { endpoint: Option<String>, authorization: bool },
}

/// Reads the arguments after the program name. At most one mode may be given; anything else
/// is an error message naming the argument (the caller adds the usage text).
pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter().peekable();
    let mut command: Option<(String, Command)> = None;
    // `--card` goes with `--http` and its flags (the card they would publish), or alone.
    let mut card = false;
    // Set by the flags that go with `--http` (`--oauth-issuer` only with feature `oauth`).
    #[cfg_attr(not(feature = "http"), allow(unused_mut))]
    let mut http_flags = HttpFlags::default();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        let long = flag.strip_prefix("--").unwrap_or_default();
        if inline.is_some() && (long == STDIO.long || matches!(long, "help" | "version")) {
            return Err(format!("`{flag}` takes no value"));
        }
        let next = match flag.as_str() {
            _ if long == STDIO.long => Command::Serve(Transport::Stdio),
            "-h" | "--help" => Command::Print(Print::Help),
            "-V" | "--version" => Command::Print(Print::Version),
            _ if long == HTTP.long => {
                let addr = inline.or_else(|| args.next_if(|a| !a.starts_with('-')));
                match addr {
                    Some(addr) if !addr.is_empty() => http(addr)?,
                    _ => return Err("`--http` needs an address, e.g. `--http 127.0.0.1:3000`".into()),
                }
            }
            #[cfg(feature = "http")]
            _ if long == PUBLIC_URL.long => {
                let url = inline.or_else(|| args.next_if(|a| !a.starts_with('-')));
                let needs = "the URL clients reach the server at, e.g. `--public-url https://mcp.example.com/mcp`";
                set_once(&mut http_flags.public_url, PUBLIC_URL, url, needs)?;
                continue;
            }
            #[cfg(all(feature = "http", feature = "telemetry"))]
            _ if long == METRICS.long => {
                let addr = inline.or_else(|| args.next_if(|a| !a.starts_with('-')));
                set_once(&mut http_flags.metrics, METRICS, addr, "an address, e.g. `--metrics 127.0.0.1:9464`")?;
                continue;
            }
            #[cfg(feature = "oauth")]
            _ if long == OAUTH_ISSUER.long => {
                let url = inline.or_else(|| args.next_if(|a| !a.starts_with('-')));
                let needs = "the authorization server's URL, e.g. `--oauth-issuer https://auth.example.com`";
                set_once(&mut http_flags.oauth_issuer, OAUTH_ISSUER, url, needs)?;
                continue;
            }
            _ if long == CARD.long => {
                if inline.is_some() {
                    return Err("`--card` takes no value".into());
                }
                card = true;
                continue;
            }
            _ if long == LIST.long => match inline.or_else(|| args.next_if(|a| !a.starts_with('-'))) {
                None => Command::Print(Print::List(Revision::LATEST)),
                Some(revision) => Command::Print(Print::List(Revision::parse(&revision).ok_or_else(|| {
                    format!("`--list {revision}`: not a protocol revision; use one of {}", revisions())
                })?)),
            },
            _ if arg.starts_with('-') => return Err(format!("unknown argument `{arg}`")),
            _ => return Err(format!("unexpected argument `{arg}`")),
        };
        if let Some((first, _)) = &command {
            return Err(format!("`{first}` and `{flag}` cannot be combined: give one of them"));
        }
        command = Some((flag, next));
    }
    let command = command.map_or(Command::Serve(Transport::Stdio), |(_, command)| command);
    if card {
        return card_of(command, http_flags);
    }
    match command {
        #[cfg(feature = "http")]
        Command::Serve(Transport::Http { addr, .. }) => Ok(Command::Serve(Transport::Http { addr, flags: http_flags })),
        _ if http_flags.oauth_issuer.is_some() => {
            Err("`--oauth-issuer` protects an HTTP server: give `--http ADDR` too".into())
        }
        _ if http_flags.public_url.is_some() => {
            Err("`--public-url` is where an HTTP server is reached: give `--http ADDR` too".into())
        }
        _ if http_flags.metrics.is_some() => {
            Err("`--metrics` serves an HTTP server's metrics: give `--http ADDR` too".into())
        }
        command => Ok(command),
    }
}

/// `--card` with what else was given: `--http ADDR` (the endpoint, unless `--public-url` says
/// where clients reach it) and `--oauth-issuer`, or nothing else.
fn card_of(command: Command, flags: HttpFlags) -> Result<Command, String> {
    let endpoint = match command {
        Command::Serve(Transport::Stdio) => None,
        #[cfg(feature = "http")]
        Command::Serve(Transport::Http { addr, .. }) => Some(flags.public_url.unwrap_or(format!("http://{addr}/mcp"))),
        Command::Print(_) => return Err("`--card` prints the Server Card: give it alone, or with `--http`".into()),
    };
    Ok(Command::Print(Print::Card { endpoint, authorization: flags.oauth_issuer.is_some() }))
}

/// Keeps `value`, what a flag that goes with `--http` was given, in `slot`: it `needs` one, and
/// may be given once.
#[cfg(feature = "http")]
fn set_once(slot: &mut Option<String>, flag: Flag, value: Option<String>, needs: &str) -> Result<(), String> {
    let Some(value) = value.filter(|value| !value.is_empty()) else {
        return Err(format!("`--{}` needs {needs}", flag.long));
    };
    if slot.replace(value).is_some() {
        return Err(format!("`--{}` is given twice", flag.long));
    }
    Ok(())
}

/// `options` with what the command line's HTTP flags say (`--public-url`, `--oauth-issuer`;
/// `--metrics` is where the metrics go, read by the caller), refusing a flag that says
/// otherwise than the options already do.
#[cfg(feature = "http")]
pub(crate) fn with_http_flags(
    options: crate::transport::http::HttpOptions,
    flags: HttpFlags,
) -> crate::Result<crate::transport::http::HttpOptions> {
    let mut options = options;
    if let Some(url) = flags.public_url {
        if let Some(given) = options.given_public_url().filter(|given| *given != url) {
            return Err(crate::Error::Usage(format!(
                "`--public-url {url}` and the options' `public_url` (`{given}`) differ: give one of them"
            )));
        }
        options = options.public_url(url);
    }
    #[cfg(feature = "oauth")]
    if let Some(issuer) = flags.oauth_issuer {
        if options.has_authorization() {
            return Err(crate::Error::Usage(format!(
                "`--oauth-issuer {issuer}` would replace the authorization the options already have \
                 (`HttpOptions::authorization`): give one of them (a public URL goes in `--public-url`)"
            )));
        }
        let verifier = crate::http::JwtVerifier::new(issuer)?;
        options = options.authorization(crate::http::Authorization::jwt(verifier));
    }
    Ok(options)
}

#[cfg(feature = "http")]
fn http(addr: String) -> Result<Command, String> {
    Ok(Command::Serve(Transport::Http { addr, flags: HttpFlags::default() }))
}

#[cfg(not(feature = "http"))]
fn http(_addr: String) -> Result<Command, String> {
    Err("this server was built without HTTP: enable the `http` feature of mcp-runtime".into())
}

/// The revisions `--list` accepts, newest first.
fn revisions() -> String {
    let names: Vec<&str> = Revision::ALL.iter().rev().map(|r| r.as_str()).collect();
    names.join(", ")
}

/// The text `--help` prints, and a usage error ends with: every flag of [`flags`], then
/// `--help` and `--version`.
pub(crate) fn usage(program: &str, name: &str, version: &str) -> String {
    let mut modes: Vec<String> = vec![format!("--{}", STDIO.long)];
    if cfg!(feature = "http") {
        let oauth = if cfg!(feature = "oauth") { " [--oauth-issuer URL]" } else { "" };
        let metrics = if cfg!(feature = "telemetry") { " [--metrics ADDR]" } else { "" };
        modes.push(format!("--{} ADDR [--public-url URL]{oauth}{metrics}", HTTP.long));
    }
    modes.extend(["--list [REVISION]".to_owned(), "--card".to_owned(), "--help".to_owned(), "--version".to_owned()]);
    let mut text = format!("{name} {version}: an MCP server\n\nUsage: {program} [{}]\n\n", modes.join(" | "));
    for flag in flags() {
        let mut help = flag.help.to_owned();
        if flag == LIST {
            help.push_str(&format!("; REVISION is one of {} (default {})", revisions(), Revision::LATEST.as_str()));
        }
        let name = format!("--{}{}", flag.long, flag.value.map(|v| format!(" {v}")).unwrap_or_default());
        text.push_str(&described(&name, &help));
    }
    text.push_str(&described("-h, --help", "print this help"));
    text.push_str(&described("-V, --version", "print the name and version"));
    text
}

/// One flag's lines of the usage text: its name, then its help wrapped at 90 columns.
fn described(name: &str, help: &str) -> String {
    const INDENT: usize = 21;
    let mut out = format!("  {name:<width$}", width = INDENT - 2);
    if name.len() > INDENT - 3 {
        out.push('\n');
        out.push_str(&" ".repeat(INDENT));
    }
    let mut column = INDENT;
    for (n, word) in help.split(' ').enumerate() {
        if n > 0 && column + 1 + word.len() > 90 {
            out.push('\n');
            out.push_str(&" ".repeat(INDENT));
            column = INDENT;
        } else if n > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += word.len();
    }
    out.push('\n');
    out
}

/// The program's name as invoked, for the usage line.
pub(crate) fn program_name() -> String {
    std::env::args_os()
        .next()
        .as_deref()
        .map(std::path::Path::new)
        .and_then(|path| path.file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "server".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(|a| (*a).to_owned()))
    }

    #[test]
    fn card_prints_the_card_alone_or_the_one_http_would_publish() {
        let card = |endpoint: Option<&str>, authorization| {
            Ok(Command::Print(Print::Card { endpoint: endpoint.map(str::to_owned), authorization }))
        };
        assert_eq!(parsed(&["--card"]), card(None, false));
        assert!(parsed(&["--card=yes"]).unwrap_err().contains("takes no value"));
        assert!(parsed(&["--list", "--card"]).unwrap_err().contains("alone, or with `--http`"));
        if cfg!(feature = "http") {
            assert_eq!(parsed(&["--http", "127.0.0.1:3000", "--card"]), card(Some("http://127.0.0.1:3000/mcp"), false));
            let public = ["--card", "--http", "0.0.0.0:80", "--public-url", "https://mcp.example.com/mcp"];
            assert_eq!(parsed(&public), card(Some("https://mcp.example.com/mcp"), false));
        }
        #[cfg(feature = "oauth")]
        assert_eq!(
            parsed(&["--http", "127.0.0.1:3000", "--oauth-issuer", "https://auth.example.com", "--card"]),
            card(Some("http://127.0.0.1:3000/mcp"), true)
        );
    }

    #[test]
    fn no_argument_serves_on_stdio() {
        assert_eq!(parsed(&[]), Ok(Command::Serve(Transport::Stdio)));
        assert_eq!(parsed(&["--stdio"]), Ok(Command::Serve(Transport::Stdio)));
    }

    #[test]
    fn help_and_version_have_short_forms() {
        assert_eq!(parsed(&["-h"]), Ok(Command::Print(Print::Help)));
        assert_eq!(parsed(&["--help"]), Ok(Command::Print(Print::Help)));
        assert_eq!(parsed(&["-V"]), Ok(Command::Print(Print::Version)));
        assert_eq!(parsed(&["--version"]), Ok(Command::Print(Print::Version)));
    }

    #[test]
    fn list_takes_an_optional_revision() {
        assert_eq!(parsed(&["--list"]), Ok(Command::Print(Print::List(Revision::LATEST))));
        assert_eq!(parsed(&["--list", "2024-11-05"]), Ok(Command::Print(Print::List(Revision::V2024_11_05))));
        assert_eq!(parsed(&["--list=2025-06-18"]), Ok(Command::Print(Print::List(Revision::V2025_06_18))));
        let bad = parsed(&["--list", "extra"]).unwrap_err();
        assert!(bad.contains("`--list extra`") && bad.contains("2024-11-05"), "{bad}");
    }

    #[test]
    fn unknown_and_extra_arguments_are_named() {
        assert_eq!(parsed(&["--nope"]), Err("unknown argument `--nope`".into()));
        assert_eq!(parsed(&["stray"]), Err("unexpected argument `stray`".into()));
        assert_eq!(parsed(&["--help=yes"]), Err("`--help` takes no value".into()));
        let combined = parsed(&["--list", "--stdio"]).unwrap_err();
        assert!(combined.contains("cannot be combined"), "{combined}");
    }

    #[cfg(feature = "http")]
    #[test]
    fn http_needs_an_address() {
        let http = |addr: &str| Ok(Command::Serve(Transport::Http { addr: addr.into(), flags: HttpFlags::default() }));
        assert_eq!(parsed(&["--http", "127.0.0.1:0"]), http("127.0.0.1:0"));
        assert_eq!(parsed(&["--http=[::1]:80"]), http("[::1]:80"));
        assert!(parsed(&["--http"]).unwrap_err().contains("needs an address"));
        assert!(parsed(&["--http", "--stdio"]).unwrap_err().contains("needs an address"));
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn an_oauth_issuer_protects_the_http_server() {
        let flags = HttpFlags { oauth_issuer: Some("https://as.example".to_owned()), ..HttpFlags::default() };
        let protected = Ok(Command::Serve(Transport::Http { addr: "127.0.0.1:0".into(), flags }));
        assert_eq!(parsed(&["--http", "127.0.0.1:0", "--oauth-issuer", "https://as.example"]), protected);
        assert_eq!(parsed(&["--oauth-issuer=https://as.example", "--http=127.0.0.1:0"]), protected);
        assert!(parsed(&["--oauth-issuer", "https://as.example"]).unwrap_err().contains("give `--http ADDR` too"));
        assert!(parsed(&["--http", "127.0.0.1:0", "--oauth-issuer"]).unwrap_err().contains("needs the"));
        let twice = parsed(&["--http=a:1", "--oauth-issuer=https://a", "--oauth-issuer=https://b"]);
        assert!(twice.unwrap_err().contains("twice"));
    }

    #[cfg(feature = "http")]
    #[test]
    fn a_public_url_goes_with_http() {
        let flags = HttpFlags { public_url: Some("https://mcp.example.com/mcp".into()), ..HttpFlags::default() };
        let public = Ok(Command::Serve(Transport::Http { addr: "127.0.0.1:0".into(), flags }));
        assert_eq!(parsed(&["--http", "127.0.0.1:0", "--public-url", "https://mcp.example.com/mcp"]), public);
        assert_eq!(parsed(&["--public-url=https://mcp.example.com/mcp", "--http=127.0.0.1:0"]), public);
        assert!(parsed(&["--public-url", "https://a/mcp"]).unwrap_err().contains("give `--http ADDR` too"));
        assert!(parsed(&["--http", "127.0.0.1:0", "--public-url"]).unwrap_err().contains("needs the URL"));
        let twice = parsed(&["--http=a:1", "--public-url=https://a/mcp", "--public-url=https://b/mcp"]);
        assert!(twice.unwrap_err().contains("twice"));
    }

    #[cfg(all(feature = "http", feature = "telemetry"))]
    #[test]
    fn metrics_go_apart_with_http() {
        let flags = HttpFlags { metrics: Some("127.0.0.1:9464".into()), ..HttpFlags::default() };
        let apart = Ok(Command::Serve(Transport::Http { addr: "0.0.0.0:80".into(), flags }));
        assert_eq!(parsed(&["--http", "0.0.0.0:80", "--metrics", "127.0.0.1:9464"]), apart);
        assert!(parsed(&["--metrics", "127.0.0.1:9464"]).unwrap_err().contains("give `--http ADDR` too"));
        assert!(parsed(&["--http", "0.0.0.0:80", "--metrics"]).unwrap_err().contains("needs an address"));
    }

    /// A flag that says otherwise than the options stops the start, naming both.
    #[cfg(feature = "oauth")]
    #[test]
    fn the_http_flags_join_the_options_or_say_what_conflicts() {
        use crate::transport::http::HttpOptions;
        let flags = |public_url: Option<&str>, oauth_issuer: Option<&str>| HttpFlags {
            public_url: public_url.map(str::to_owned),
            oauth_issuer: oauth_issuer.map(str::to_owned),
            metrics: None,
        };
        let public = "https://mcp.example.com/mcp";
        let joined = with_http_flags(HttpOptions::default(), flags(Some(public), Some("https://auth.example.com")));
        let joined = joined.expect("no conflict");
        assert_eq!(joined.given_public_url(), Some(public));
        assert!(joined.has_authorization());
        assert!(with_http_flags(HttpOptions::default().public_url(public), flags(Some(public), None)).is_ok());
        let other = HttpOptions::default().public_url("https://other.example/mcp");
        let Err(crate::Error::Usage(other)) = with_http_flags(other, flags(Some(public), None)) else {
            panic!("two public URLs accepted")
        };
        assert!(other.contains("https://other.example/mcp") && other.contains(public), "{other}");
        let hooked = HttpOptions::default().authorization(crate::http::Authorization::hook(|_| async {
            Err::<crate::Identity, _>(crate::http::Reject::new("no"))
        }));
        let Err(crate::Error::Usage(replaced)) = with_http_flags(hooked, flags(None, Some("https://auth.example.com")))
        else {
            panic!("--oauth-issuer replaced an authorization")
        };
        assert!(replaced.contains("--oauth-issuer https://auth.example.com") && replaced.contains("authorization"));
    }

    #[test]
    fn usage_lists_every_mode() {
        let text = usage("gift_genius", "gift-genius", "0.1.0");
        assert!(text.starts_with("gift-genius 0.1.0: an MCP server\n"));
        for flag in ["--stdio", "--list [REVISION]", "--help", "--version"] {
            assert!(text.contains(flag), "{flag} missing from:\n{text}");
        }
        assert_eq!(text.contains("--http ADDR"), cfg!(feature = "http"));
        assert_eq!(text.contains("--oauth-issuer URL"), cfg!(feature = "oauth"));
    }
}
