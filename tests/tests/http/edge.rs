//! The HTTP edge against hostile and sloppy requests, in both eras: a body that is not one
//! JSON-RPC message is refused on its own POST, media types are checked, `Last-Event-ID` never
//! gets 404, framing that two readers could read differently is refused, connections cannot
//! be held forever, and the server stays reachable with its file limit exhausted.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use mcp_tests::example_binary;
use mcp_tests::http::{HttpServer, RawAnswer, initialize, post, raw_exchange, send_text};
use mcp_tests::services::KillOnDrop;
use mcp_tests::wire::{CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY, STATELESS_REVISION};
use serde_json::{Value, json};

fn manual(args: &[&str]) -> HttpServer {
    let mut all = vec!["--test-tools"];
    all.extend_from_slice(args);
    HttpServer::start(&example_binary("manual"), &all)
}

/// Where a POST stands: in a handshake-era session, in 2026-07-28 (its version header, no
/// session), or with no MCP header at all (a client that has not initialized).
enum Era {
    Handshake(String),
    Stateless,
    Bare,
}

impl Era {
    fn headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            ("accept".to_owned(), "application/json, text/event-stream".to_owned()),
        ];
        match self {
            Era::Handshake(session) => {
                headers.push(("mcp-session-id".into(), session.clone()));
                headers.push(("mcp-protocol-version".into(), "2025-06-18".into()));
            }
            Era::Stateless => headers.push(("mcp-protocol-version".into(), STATELESS_REVISION.into())),
            Era::Bare => {}
        }
        headers
    }

    fn name(&self) -> &'static str {
        match self {
            Era::Handshake(_) => "handshake",
            Era::Stateless => "2026-07-28",
            Era::Bare => "no session, no version header",
        }
    }
}

fn open_session(url: &str, revision: &str) -> String {
    let answer = post(url, &initialize(revision, json!({})), &[]);
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.session.clone().expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let ack = post(url, &initialized, &[("mcp-session-id", &session), ("mcp-protocol-version", revision)]);
    assert_eq!(ack.status, 202);
    session
}

fn error_code(answer: &mcp_tests::http::Answer) -> i64 {
    answer.last()["error"]["code"].as_i64().unwrap_or_else(|| panic!("an error: {answer:?}"))
}

#[test]
fn a_body_that_is_not_one_message_is_refused_on_its_own_post() {
    let server = manual(&[]);
    let eras = [Era::Handshake(open_session(&server.url, "2025-06-18")), Era::Stateless, Era::Bare];
    let bodies: [(&str, i64); 9] = [
        ("{not json", -32700),
        ("", -32700),
        (r#""a string""#, -32600),
        ("5", -32600),
        ("null", -32600),
        (r#"{"jsonrpc":"2.0","id":5}"#, -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"1.0","method":"notifications/progress"}"#, -32600),
    ];
    for era in &eras {
        for (body, code) in bodies {
            let answer = send_text(&server.url, "POST", Some(body.to_owned()), &era.headers());
            assert_eq!(
                (answer.status, error_code(&answer)),
                (400, code),
                "{} era, body {body:?}: {answer:?}",
                era.name()
            );
        }
        let empty = send_text(&server.url, "POST", Some("[ ]".into()), &era.headers());
        assert_eq!((empty.status, error_code(&empty)), (400, -32600), "{}: {empty:?}", era.name());
        assert!(empty.last()["error"]["message"].as_str().unwrap().contains("empty batch"), "{empty:?}");
        let batch = send_text(
            &server.url,
            "POST",
            Some(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.into()),
            &era.headers(),
        );
        assert_eq!((batch.status, error_code(&batch)), (400, -32600), "{}: {batch:?}", era.name());
        let message = batch.last()["error"]["message"].as_str().unwrap();
        assert!(message.contains("batch") && !message.contains("Unsupported"), "{message}");
    }
    // A 2025-03-26 session keeps its batches.
    let old = open_session(&server.url, "2025-03-26");
    let headers = [
        ("content-type".to_owned(), "application/json".to_owned()),
        ("accept".to_owned(), "application/json, text/event-stream".to_owned()),
        ("mcp-session-id".to_owned(), old),
    ];
    let batch = send_text(&server.url, "POST", Some(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.into()), &headers);
    assert_eq!(batch.status, 200, "{batch:?}");
    assert_eq!(batch.last()[0]["result"], json!({}), "{batch:?}");
    // The server kept serving throughout.
    let ping =
        send_text(&server.url, "POST", Some(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#.into()), &eras[0].headers());
    assert_eq!((ping.status, ping.last()["result"].clone()), (200, json!({})));
}

/// A 2026-07-28 `server/discover`, to check media types against.
fn discover() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        PROTOCOL_VERSION_KEY: STATELESS_REVISION, CLIENT_CAPABILITIES_KEY: {}}}})
    .to_string()
}

/// The header a 2026-07-28 `server/discover` carries.
const DISCOVER: &str = "Mcp-Method: server/discover";

/// A raw POST of `body` with `headers` (each a whole header line, without its CRLF).
fn raw_post(addr: &str, headers: &[&str], body: &str) -> RawAnswer {
    let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n", body.len());
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    request.push_str(body);
    raw_exchange(addr, request.as_bytes())
}

#[test]
fn content_type_and_accept_are_checked() {
    let server = manual(&[]);
    let session = open_session(&server.url, "2025-06-18");
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let session_header = format!("Mcp-Session-Id: {session}");
    let both = "Accept: application/json, text/event-stream";
    for (body, era, extra) in
        [(discover(), "2026-07-28", DISCOVER), (ping.to_owned(), "handshake", session_header.as_str())]
    {
        let with = |headers: &[&str]| {
            let mut all: Vec<&str> = headers.to_vec();
            all.push(extra);
            raw_post(&server.addr, &all, &body).status
        };
        assert_eq!(with(&[both]), 415, "{era}: no Content-Type");
        assert_eq!(with(&["Content-Type: text/plain", both]), 415, "{era}");
        assert_eq!(with(&["Content-Type: application/jsonx", both]), 415, "{era}");
        assert_eq!(with(&["Content-Type: Application/JSON; charset=utf-8", both]), 200, "{era}");
        let json = "Content-Type: application/json";
        assert_eq!(with(&[json, "Accept: application/json"]), 406, "{era}");
        assert_eq!(with(&[json, "Accept: text/event-stream"]), 406, "{era}");
        assert_eq!(with(&[json, "Accept: */*, text/event-stream;q=0"]), 406, "{era}");
        assert_eq!(with(&[json, "Accept: */*"]), 200, "{era}: */* accepts both");
        assert_eq!(with(&[json]), 200, "{era}: no Accept accepts anything");
    }
    let get = |accept: &str, session: Option<&str>| {
        let session = session.map(|s| format!("Mcp-Session-Id: {s}\r\n")).unwrap_or_default();
        let request = format!("GET /mcp HTTP/1.1\r\nHost: {}\r\n{accept}{session}\r\n", server.addr);
        raw_exchange(&server.addr, request.as_bytes()).status
    };
    assert_eq!(get("Accept: application/json\r\n", Some(&session)), 406);
    assert_eq!(get("Accept: text/event-stream\r\n", Some(&session)), 200);
    assert_eq!(get("Accept: application/json\r\n", None), 405, "2026-07-28 has no GET");
}

#[test]
fn last_event_id_is_never_answered_404() {
    let server = manual(&[]);
    let session = open_session(&server.url, "2025-06-18");
    let get = |last: &str| {
        let request = format!(
            "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nLast-Event-ID: {last}\r\n\r\n",
            server.addr
        );
        let answer = raw_exchange(&server.addr, request.as_bytes());
        (answer.status, answer.body)
    };
    let long = "a".repeat(10 * 1024);
    for (last, why) in [("0123abcd_7", "unknown"), ("not an id", "malformed"), (long.as_str(), "10 KB")] {
        let (status, body) = get(last);
        assert_eq!(status, 400, "{why}: {body}");
        assert!(body.contains("Last-Event-ID"), "{why}: {body}");
    }
    // The session's own stream, resumed from an id no longer kept, opens without replay.
    let (status, _) = get(&format!("get-{session}_999"));
    assert_eq!(status, 200);
    // And the session is alive.
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let answer = post(&server.url, &ping, &[("mcp-session-id", &session), ("mcp-protocol-version", "2025-06-18")]);
    assert_eq!(answer.status, 200);
}

#[test]
fn framing_two_readers_could_read_apart_is_refused() {
    let server = manual(&[]);
    let session = open_session(&server.url, "2025-06-18");
    let body = discover();
    let json = ["Content-Type: application/json", "Accept: application/json, text/event-stream", DISCOVER];
    fn extra<'a>(json: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
        json.iter().chain(more).copied().collect()
    }
    assert_eq!(raw_post(&server.addr, &extra(&json, &["Host: evil.example"]), &body).status, 400, "two Host headers");
    let two_sessions = [format!("Mcp-Session-Id: {session}"), "Mcp-Session-Id: other".to_owned()];
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let headers = extra(&json, &[&two_sessions[0], &two_sessions[1]]);
    assert_eq!(raw_post(&server.addr, &headers, ping).status, 400, "two Mcp-Session-Id headers");
    let absolute = |authority: &str| {
        let request = format!(
            "POST http://{authority}/mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{DISCOVER}\r\nContent-Length: {}\r\n\r\n{body}",
            server.addr,
            body.len()
        );
        raw_exchange(&server.addr, request.as_bytes()).status
    };
    assert_eq!(absolute("evil.example"), 421, "the target's authority is the host");
    assert_eq!(absolute(&server.addr), 200);
    // 100-continue for a body over the limit: refused before the body is asked for.
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1000000000\r\nExpect: 100-continue\r\n\r\n",
        server.addr
    );
    let answer = raw_exchange(&server.addr, request.as_bytes());
    assert_eq!(answer.status, 413, "{answer:?}");
    assert!(!answer.raw.contains("100 Continue"), "{}", answer.raw);
}

/// `max_connections`: with every connection serving (each carrying a session's GET stream,
/// which is serving however quiet), a new one is answered 503 with `Retry-After` and closed;
/// once one of them ends, a new connection is served. (The default, the file limit less 64,
/// is the same setting: `a_new_client_is_served_with_the_file_limit_exhausted`.)
#[test]
fn a_new_connection_gets_503_when_every_connection_is_serving() {
    let server = manual(&["--max-connections", "3"]);
    let addr = server.addr.clone();
    let mut streams: Vec<TcpStream> = (0..3)
        .map(|n| {
            let session = open_session(&server.url, "2025-06-18");
            let mut stream = TcpStream::connect(&addr).expect("connected");
            let get = format!(
                "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\
                 Mcp-Protocol-Version: 2025-06-18\r\n\r\n"
            );
            stream.write_all(get.as_bytes()).expect("written");
            let mut opening = [0u8; 512];
            let read = stream.read(&mut opening).expect("the stream opens");
            assert!(String::from_utf8_lossy(&opening[..read]).starts_with("HTTP/1.1 200"), "stream {n} is served");
            stream
        })
        .collect();
    let refused = raw_post(&addr, &["Content-Type: application/json", "Accept: */*", DISCOVER], &discover());
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.headers.iter().any(|(name, value)| name == "retry-after" && value == "1"), "{refused:?}");
    drop(streams.pop());
    // The server notices the closed stream when it next writes or reads on it: ask until a
    // new connection is served (five seconds at most).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let answer = raw_post(&addr, &["Content-Type: application/json", "Accept: */*", DISCOVER], &discover());
        if answer.status == 200 {
            break;
        }
        assert_eq!(answer.status, 503, "{answer:?}");
        assert!(Instant::now() < deadline, "no connection was served after a stream ended");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Opens `count` connections and writes `prefix` on each: each with when it was written.
fn stalled(addr: &str, count: usize, prefix: &[u8]) -> Vec<(TcpStream, Instant)> {
    (0..count)
        .map(|n| {
            let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connection {n}: {e}"));
            stream.write_all(prefix).expect("written");
            (stream, Instant::now())
        })
        .collect()
}

/// Whether the server closed `stream` (with or without a response) within `limit`; what it
/// did already is read even when `limit` is zero.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut buffer = [0u8; 1024];
    loop {
        // A read timeout cannot be zero: what is already there takes well under a millisecond.
        let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        stream.set_read_timeout(Some(left)).expect("a timeout");
        match stream.read(&mut buffer) {
            Ok(0) => return true,
            // An answer before the close (408): read on, to the close.
            Ok(_) if Instant::now() < deadline + Duration::from_secs(5) => continue,
            Ok(_) => return false,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::ConnectionReset) => return true,
            Err(_) => return false,
        }
    }
}

/// The soft limit on open files of process `pid` and its hard limit.
fn file_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).expect("/proc/<pid>/limits");
    let line = limits.lines().find(|l| l.starts_with("Max open files")).expect("a file limit");
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[3].to_owned(), fields[4].to_owned())
}

#[test]
fn stalled_and_idle_connections_are_closed_by_their_timeouts() {
    let (soft, _) = file_limits(std::process::id());
    assert!(soft == "unlimited" || soft.parse::<usize>().unwrap() >= 2_000, "this test needs 2,000 files: ulimit -n");
    let server = manual(&["--head-timeout-ms", "1000", "--body-timeout-ms", "1000", "--keep-alive-ms", "1000"]);
    let started = Instant::now();
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", server.addr);
    let body = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: */*\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
        server.addr
    );
    // Each group is opened and then watched in a thread of its own, in the order its
    // connections were written, so that none is looked at after its deadline has passed: each
    // is closed by its 1 s timeout, counted from its last write, with 1 s of slack for a
    // loaded machine (a timeout twice as long fails).
    let groups = [("in their heads", head.as_bytes()), ("in their bodies", body.as_bytes()), ("idle", &b""[..])];
    std::thread::scope(|scope| {
        for (what, prefix) in groups {
            let addr = &server.addr;
            scope.spawn(move || {
                let open = stalled(addr, 500, prefix)
                    .iter_mut()
                    .map(|(stream, written)| {
                        let deadline = *written + Duration::from_secs(2);
                        closed_within(stream, deadline.saturating_duration_since(Instant::now()))
                    })
                    .filter(|closed| !closed)
                    .count();
                assert_eq!(
                    open,
                    0,
                    "connections stalled {what} still open 2 s after their last write ({:?} in all)",
                    started.elapsed()
                );
            });
        }
    });
    // A body that stalls gets 408 before its connection closes (a head that stalls gets no
    // answer: there is no request to answer yet).
    let mut late = stalled(&server.addr, 1, body.as_bytes());
    let (stream, _) = &mut late[0];
    stream.set_read_timeout(Some(Duration::from_secs(5))).expect("a timeout");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "a stalled body: {answer:?}");
    // An idle keep-alive connection after a request is closed too, and a new one is served.
    let answer = raw_post(&server.addr, &["Content-Type: application/json", "Accept: */*", DISCOVER], &discover());
    assert_eq!(answer.status, 200);
}

/// `example args --http <free port>` with its file limit set by `ulimit <limit>` (the shell
/// `exec`s it, so the process id is the server's), killed when dropped; and its address.
fn serve_under_limit(example: &str, limit: &str, args: &str) -> (KillOnDrop, String) {
    let port = mcp_tests::services::free_port();
    let addr = format!("127.0.0.1:{port}");
    let program = example_binary(example);
    let child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit {limit} && exec \"{}\" {args} --http {addr}", program.display()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("sh starts");
    let mut child = KillOnDrop(child);
    mcp_tests::services::wait_for_port(&mut child.0, port, example, Duration::from_secs(10));
    (child, addr)
}

#[test]
fn a_new_client_is_served_with_the_file_limit_exhausted() {
    let (soft, _) = file_limits(std::process::id());
    assert!(soft == "unlimited" || soft.parse::<usize>().unwrap() >= 2_000, "this test needs 2,000 files: ulimit -n");
    let (child, addr) = serve_under_limit("manual", "-n 1024", "--test-tools");
    assert_eq!(file_limits(child.0.id()), ("1024".to_owned(), "1024".to_owned()));
    // A client being served (its GET stream open) before the flood.
    let session = open_session(&format!("http://{addr}/mcp"), "2025-06-18");
    let mut listening = TcpStream::connect(&addr).expect("connected");
    let get =
        format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\r\n");
    listening.write_all(get.as_bytes()).expect("written");
    let mut opening = [0u8; 512];
    let read = listening.read(&mut opening).expect("the stream opens");
    assert!(String::from_utf8_lossy(&opening[..read]).starts_with("HTTP/1.1 200"), "the GET stream is served");
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n");
    let _stalled = stalled(&addr, 1_100, head.as_bytes());
    let started = Instant::now();
    let answer = raw_post(&addr, &["Content-Type: application/json", "Accept: */*", DISCOVER], &discover());
    let served_after = started.elapsed();
    // The stream being served was not closed to make room.
    listening.set_read_timeout(Some(Duration::from_millis(300))).expect("a timeout");
    let still_open = match listening.read(&mut opening) {
        Ok(0) => false,
        Ok(_) => true,
        Err(e) => matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
    };
    drop(child);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(served_after < Duration::from_secs(2), "served after {served_after:?}");
    assert!(still_open, "a client being served keeps its connection");
}

#[test]
fn run_raises_the_soft_file_limit_to_the_hard_one() {
    let (child, _addr) = serve_under_limit("gift_genius", "-S -n 512", "");
    let (soft, hard) = file_limits(child.0.id());
    assert_ne!(soft, "512", "raised");
    assert_eq!(soft, hard);
}

/// An idle server notices at once a client that closed its output and stops: under `run()`
/// (GiftGen), and under `serve_stdio().await` on the application's own `#[tokio::main]`
/// runtime (`manual`), where standard output is written by a thread of its own.
#[test]
fn an_idle_stdio_server_notices_its_output_closed() {
    for example in ["gift_genius", "manual"] {
        idle_server_notices_its_output_closed(example);
    }
}

fn idle_server_notices_its_output_closed(example: &str) {
    let mut child = std::process::Command::new(example_binary(example))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{example} starts: {e}"));
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let init = initialize("2025-06-18", json!({}));
    writeln!(stdin, "{init}").expect("written");
    let mut line = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut line).expect("a response");
    let response: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(response["id"], 0);
    // The client stops reading, keeps its input open, and sends nothing more.
    drop(stdout);
    let closed = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break status;
        }
        if closed.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("{example}: still running 5 s after its output closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(closed.elapsed() < Duration::from_secs(1), "{example}: noticed after {:?} ({status})", closed.elapsed());
    drop(stdin);
}
