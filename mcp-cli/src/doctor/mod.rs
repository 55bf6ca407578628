//! `mcp doctor`: connects as a strict client in every revision the server speaks (a fresh
//! connection for each) and reports what would break clients, each finding under a check id
//! that never changes (see [`checks`]). Every wait is bounded: a server that hangs is a
//! finding, not a hang.

mod checks;
mod examine;
mod http_rules;
mod wire;

use std::time::Duration;

use mcp_runtime::protocol::Revision;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::args::Connect;
use crate::connect::{self, Failure, Target};
use crate::output::{Style, print_json};
use checks::{Finding, Severity};
use wire::{Answer, Wire};

/// A version no server speaks, to see how an unknown one is answered.
const UNKNOWN_VERSION: &str = "2099-01-01";

/// How long the doctor watches for messages a server sends before `notifications/initialized`.
const EARLY_WINDOW: Duration = Duration::from_millis(300);

/// How long `server/discover` may take before a server is taken for a handshake-only one
/// (some ignore requests that come before `initialize`).
const DISCOVERY_PATIENCE: Duration = Duration::from_secs(3);

/// How many pages of one list are read.
const MAX_PAGES: usize = 20;

/// Prints the checks: a Markdown table (the README's), or JSON.
pub(crate) fn list_checks(as_json: bool) {
    if as_json {
        let checks: Vec<Value> = checks::ALL
            .iter()
            .map(|c| json!({"check": c.id, "severity": c.severity, "means": c.means, "breaks": c.breaks, "fix": c.fix}))
            .collect();
        print_json(&Value::Array(checks));
        return;
    }
    println!("| check | severity | the mistake | what a client does when a server makes it |");
    println!("|---|---|---|---|");
    for check in checks::ALL {
        let severity = match check.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        println!("| `{}` | {severity} | {} | {} |", check.id, check.means, check.breaks);
    }
}

/// Runs `mcp doctor`.
pub(crate) async fn run(positional: &[String], args: &Connect) -> Result<(), Failure> {
    let (target, rest) = Target::read(positional, args)?;
    if let Some(extra) = rest.first() {
        return Err(Failure::Usage(format!("`mcp doctor` takes a server only; `{extra}` is left over")));
    }
    let mut headers = HeaderMap::new();
    for header in &args.headers {
        let (name, value) = connect::header_pair(header)?;
        if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
            headers.insert(name, value);
        }
    }
    if let Some(token) = &args.bearer
        && let Ok(value) = HeaderValue::from_str(&format!("Bearer {token}"))
    {
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    let mut doctor =
        Doctor { target, headers, patience: connect::timeout(args)?, findings: Vec::new(), spoken: Vec::new() };
    doctor.examine().await?;
    let findings = merged(doctor.findings);
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    if args.json {
        print_json(&json!({
            "target": doctor.target.describe(),
            "revisions": doctor.spoken,
            "findings": findings,
            "errors": errors,
            "warnings": findings.len() - errors,
        }));
    } else {
        print_text(&doctor.target, &doctor.spoken, &findings);
    }
    if errors > 0 { Err(Failure::Failed(String::new())) } else { Ok(()) }
}

/// The examination's state: where, how patient, what was found.
struct Doctor {
    target: Target,
    headers: HeaderMap,
    patience: Duration,
    findings: Vec<Finding>,
    /// Each revision asked and what the server answered.
    spoken: Vec<Value>,
}

impl Doctor {
    async fn examine(&mut self) -> Result<(), Failure> {
        let supported = self.stateless().await?;
        let handshake = self.handshakes(supported.as_deref()).await?;
        if self.spoken.iter().all(|s| s["answered"].is_null()) {
            self.findings.push(checks::NO_ANSWER.found(
                None,
                "the server spoke no revision: neither `server/discover` nor `initialize` was answered with a result",
            ));
        }
        if matches!(self.target, Target::Http(_)) {
            let stateless = supported.as_ref().is_some_and(|s| s.iter().any(|v| v == Revision::LATEST.as_str()));
            let found = http_rules::examine(self, handshake, stateless).await?;
            self.findings.extend(found);
        }
        Ok(())
    }

    fn open(&self) -> Result<Wire, Failure> {
        Wire::open(&self.target, &self.headers, self.patience).map_err(Failure::Failed)
    }

    /// 2026-07-28: `server/discover`, an unknown version, then the session's checks. Returns
    /// the versions the server lists, when it speaks 2026-07-28.
    async fn stateless(&mut self) -> Result<Option<Vec<String>>, Failure> {
        let latest = Revision::LATEST.as_str();
        let mut wire = self.open()?;
        if let Some(http) = wire.http() {
            http.stateless = true;
            http.version = Some(latest.to_owned());
        }
        wire.set_patience(DISCOVERY_PATIENCE.min(self.patience));
        let discovered = wire.request("server/discover", json!({"_meta": meta(latest)})).await;
        wire.set_patience(self.patience);
        let answer = match discovered {
            Ok(answer) => answer,
            Err(silence) => {
                self.spoken.push(json!({"asked": latest, "method": "server/discover", "refused": silence.to_string()}));
                self.noise(&mut wire, None);
                wire.close().await;
                return Ok(None);
            }
        };
        let Some(result) = answer.response.get("result") else {
            // An error: not a 2026-07-28 server (the handshake fallback, as the spec says).
            let why = answer.response["error"]["message"].as_str().unwrap_or("an error").to_owned();
            self.spoken.push(json!({"asked": latest, "method": "server/discover", "refused": why}));
            self.noise(&mut wire, None);
            wire.close().await;
            return Ok(None);
        };
        self.findings.extend(examine::envelope(
            &answer.response,
            answer.id,
            "server/discover",
            checks::INITIALIZE_MALFORMED,
            Some(latest),
        ));
        self.findings.extend(examine::discover_result(result));
        let supported: Vec<String> = result["supportedVersions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        if !supported.iter().any(|v| v == latest) {
            self.spoken.push(json!({"asked": latest, "method": "server/discover", "refused": format!("lists only {}", supported.join(", "))}));
            wire.close().await;
            return Ok(Some(supported));
        }
        self.spoken.push(json!({"asked": latest, "method": "server/discover", "answered": latest}));
        self.unknown_stateless_version(&mut wire).await;
        let capabilities = result["capabilities"].clone();
        let mut seen = answer.before;
        self.session(&mut wire, latest, true, &capabilities, &mut seen).await;
        self.findings.extend(examine::list_changes(&seen, &capabilities, latest));
        self.noise(&mut wire, Some(latest));
        wire.close().await;
        Ok(Some(supported))
    }

    /// 2026-07-28 asks an unknown version to be answered with -32022 and the versions spoken.
    async fn unknown_stateless_version(&mut self, wire: &mut Wire) {
        let latest = Some(Revision::LATEST.as_str());
        if let Some(http) = wire.http() {
            http.version = Some(UNKNOWN_VERSION.to_owned());
        }
        let answer = wire.request("server/discover", json!({"_meta": meta(UNKNOWN_VERSION)})).await;
        if let Some(http) = wire.http() {
            http.version = Some(Revision::LATEST.as_str().to_owned());
        }
        let message = match answer {
            Err(silence) => format!("a request of version {UNKNOWN_VERSION} got {silence}"),
            Ok(Answer { response, .. }) => match response.get("error") {
                Some(error) if error["code"] == -32022 && error["data"]["supported"].is_array() => return,
                Some(error) => format!(
                    "a request of version {UNKNOWN_VERSION} was refused with {}, not -32022 with `data.supported`",
                    examine::shown(error)
                ),
                None => format!("a request of version {UNKNOWN_VERSION} was answered as if the server spoke it"),
            },
        };
        self.findings.push(checks::VERSION_NEGOTIATION.found(latest, message));
    }

    /// The handshake revisions, newest first, each on a connection of its own, then an
    /// unknown version. Returns the revision of the newest handshake the server completed.
    async fn handshakes(&mut self, supported: Option<&[String]>) -> Result<Option<String>, Failure> {
        let mut examined: Vec<String> = Vec::new();
        let mut newest = None;
        for asked in Revision::HANDSHAKE.iter().rev().map(|r| r.as_str()) {
            let mut wire = self.open()?;
            let Some((answered, capabilities, mut seen)) = self.initialize(&mut wire, asked, supported).await else {
                self.noise(&mut wire, Some(asked));
                wire.close().await;
                continue;
            };
            newest.get_or_insert_with(|| answered.clone());
            if Revision::parse(&answered).is_some() && !examined.contains(&answered) {
                self.session(&mut wire, &answered, false, &capabilities, &mut seen).await;
                seen.extend(wire.drain(Duration::ZERO).await);
                self.findings.extend(examine::list_changes(&seen, &capabilities, &answered));
                examined.push(answered);
            }
            self.noise(&mut wire, Some(asked));
            wire.close().await;
        }
        if newest.is_some() {
            let mut wire = self.open()?;
            match wire.request("initialize", initialize_params(UNKNOWN_VERSION)).await {
                Ok(answer) => {
                    let result = &answer.response["result"];
                    let message = if answer.response.get("error").is_some() {
                        Some(format!(
                            "`initialize` asking {UNKNOWN_VERSION} was refused with an error; answer with a version you speak instead"
                        ))
                    } else if result["protocolVersion"] == UNKNOWN_VERSION {
                        Some(format!(
                            "`initialize` asking {UNKNOWN_VERSION} was answered {UNKNOWN_VERSION}: the version is echoed, not negotiated"
                        ))
                    } else {
                        None
                    };
                    if let Some(message) = message {
                        self.findings.push(checks::VERSION_NEGOTIATION.found(None, message));
                    }
                }
                Err(silence) => self
                    .findings
                    .push(checks::NO_ANSWER.found(None, format!("`initialize` asking {UNKNOWN_VERSION}: {silence}"))),
            }
            wire.close().await;
        }
        Ok(newest)
    }

    /// `initialize` asking `asked`, its answer checked, the messages before
    /// `notifications/initialized` watched, then that notification sent. Returns the revision
    /// answered, the capabilities, and the messages seen so far.
    async fn initialize(
        &mut self,
        wire: &mut Wire,
        asked: &str,
        supported: Option<&[String]>,
    ) -> Option<(String, Value, Vec<Value>)> {
        let answer = match wire.request("initialize", initialize_params(asked)).await {
            Ok(answer) => answer,
            Err(silence) => {
                self.spoken.push(json!({"asked": asked, "method": "initialize", "refused": silence.to_string()}));
                self.findings
                    .push(checks::NO_ANSWER.found(Some(asked), format!("`initialize` asking {asked}: {silence}")));
                return None;
            }
        };
        self.findings.extend(examine::envelope(
            &answer.response,
            answer.id,
            "`initialize`",
            checks::INITIALIZE_MALFORMED,
            Some(asked),
        ));
        let Some(result) = answer.response.get("result") else {
            let error = examine::shown(&answer.response["error"]);
            self.spoken.push(json!({"asked": asked, "method": "initialize", "refused": error}));
            // A 2026-07-28-only server refuses the handshake (with -32022): that is its right.
            let stateless_only = supported.is_some_and(|s| !s.iter().any(|v| v != Revision::LATEST.as_str()));
            if !stateless_only {
                self.findings.push(checks::VERSION_NEGOTIATION.found(
                    Some(asked),
                    format!(
                        "`initialize` asking {asked} was refused with {error}; answer with a version you speak instead"
                    ),
                ));
            }
            return None;
        };
        self.findings.extend(examine::initialize_result(result, Some(asked)));
        let answered = result["protocolVersion"].as_str().unwrap_or_default().to_owned();
        self.spoken.push(json!({"asked": asked, "method": "initialize", "answered": answered}));
        if answered != asked && supported.is_some_and(|s| s.iter().any(|v| v == asked)) {
            self.findings.push(checks::VERSION_NEGOTIATION.found(
                Some(asked),
                format!(
                    "`initialize` asking {asked}, a version the server lists as supported, was answered {answered}"
                ),
            ));
        }
        let mut seen = answer.before;
        seen.extend(wire.drain(EARLY_WINDOW).await);
        self.findings.extend(examine::early(&seen, &answered));
        if let Some(http) = wire.http() {
            http.session = answer.http.as_ref().and_then(|h| h.header("mcp-session-id")).map(str::to_owned);
            http.version = Some(answered.clone());
        }
        match wire.notify("notifications/initialized", json!({})).await {
            Ok(Some(status)) if status != 202 => self.findings.push(checks::HTTP_NOTIFICATION_STATUS.found(
                Some(&answered),
                format!("`notifications/initialized` was answered with HTTP {status}, not 202"),
            )),
            Ok(_) => {}
            Err(silence) => {
                self.findings
                    .push(checks::NO_ANSWER.found(Some(&answered), format!("`notifications/initialized`: {silence}")));
                return None;
            }
        }
        let capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        Some((answered, capabilities, seen))
    }

    /// The checks every session gets: `ping`, an unknown method, the four lists (against
    /// the capabilities), the tools' names and schemas, the tool list's order.
    async fn session(
        &mut self,
        wire: &mut Wire,
        revision: &str,
        stateless: bool,
        capabilities: &Value,
        seen: &mut Vec<Value>,
    ) {
        let with_meta = |mut params: Value| {
            if stateless {
                params["_meta"] = meta(revision);
            }
            params
        };
        if !stateless {
            match self.ask(wire, "ping", json!({}), revision, seen).await {
                Some(response) => {
                    let empty = response["result"].as_object().is_some_and(|r| r.keys().all(|k| k == "_meta"));
                    if !empty {
                        self.findings.push(checks::PING_BROKEN.found(
                            Some(revision),
                            format!("`ping` was answered with {}, not an empty result", examine::shown(&response)),
                        ));
                    }
                }
                // No answer: already a finding (`no-answer`).
                None => return,
            }
        }
        if let Some(response) = self.ask(wire, "mcp-doctor/no-such-method", with_meta(json!({})), revision, seen).await
            && response["error"]["code"] != -32601
        {
            self.findings.push(checks::UNKNOWN_METHOD.found(
                Some(revision),
                format!(
                    "the unknown method `mcp-doctor/no-such-method` was answered with {}",
                    examine::shown(&response)
                ),
            ));
        }
        let lists = [
            ("tools/list", "tools", "tools"),
            ("resources/list", "resources", "resources"),
            ("resources/templates/list", "resources", "resourceTemplates"),
            ("prompts/list", "prompts", "prompts"),
        ];
        let mut tools = None;
        for (method, capability, key) in lists {
            let declared = capabilities.get(capability).is_some_and(|c| !c.is_null());
            let listed = self.list(wire, method, key, revision, stateless, seen).await;
            match (&listed, declared) {
                (Err(Some(why)), true) => self.findings.push(checks::CAPABILITY_UNBACKED.found(
                    Some(revision),
                    format!("`{capability}` is declared, but `{method}` was answered with {why}"),
                )),
                (Ok(items), false) if !items.is_empty() => self.findings.push(checks::CAPABILITY_UNDECLARED.found(
                    Some(revision),
                    format!(
                        "`{method}` lists {} item(s), but the capabilities do not declare `{capability}`",
                        items.len()
                    ),
                )),
                _ => {}
            }
            if method == "tools/list" {
                tools = listed.ok();
            }
        }
        let Some(tools) = tools else { return };
        self.findings.extend(examine::tools(&tools, revision));
        if let Ok(again) = self.list(wire, "tools/list", "tools", revision, stateless, seen).await {
            let names =
                |tools: &[Value]| tools.iter().map(|t| t["name"].as_str().unwrap_or("").to_owned()).collect::<Vec<_>>();
            let (first, second) = (names(&tools), names(&again));
            let mut sorted = (first.clone(), second.clone());
            sorted.0.sort();
            sorted.1.sort();
            if first != second && sorted.0 == sorted.1 {
                let severity = if stateless { Severity::Error } else { Severity::Warning };
                self.findings.push(checks::ORDER_UNSTABLE.found_as(
                    severity,
                    Some(revision),
                    format!(
                        "two `tools/list` calls gave the same tools in two orders: [{}] then [{}]",
                        first.join(", "),
                        second.join(", ")
                    ),
                ));
            }
        }
    }

    /// A request whose answer's envelope is checked; `None` when none came (a finding).
    async fn ask(
        &mut self,
        wire: &mut Wire,
        method: &str,
        params: Value,
        revision: &str,
        seen: &mut Vec<Value>,
    ) -> Option<Value> {
        match wire.request(method, params).await {
            Ok(answer) => {
                self.findings.extend(examine::envelope(
                    &answer.response,
                    answer.id,
                    &format!("`{method}`"),
                    checks::MESSAGE_MALFORMED,
                    Some(revision),
                ));
                seen.extend(answer.before);
                Some(answer.response)
            }
            Err(silence) => {
                self.findings.push(checks::NO_ANSWER.found(Some(revision), format!("`{method}`: {silence}")));
                None
            }
        }
    }

    /// Every page of a list; `Err` with the error when the server refused it, `Err(None)`
    /// when it did not answer (a finding already).
    async fn list(
        &mut self,
        wire: &mut Wire,
        method: &str,
        key: &str,
        revision: &str,
        stateless: bool,
        seen: &mut Vec<Value>,
    ) -> Result<Vec<Value>, Option<String>> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = json!({});
            if let Some(cursor) = &cursor {
                params["cursor"] = json!(cursor);
            }
            if stateless {
                params["_meta"] = meta(revision);
            }
            let Some(response) = self.ask(wire, method, params, revision, seen).await else {
                return Err(None);
            };
            if let Some(error) = response.get("error") {
                return Err(Some(examine::shown(error)));
            }
            let result = &response["result"];
            items.extend(result[key].as_array().into_iter().flatten().cloned());
            match result["nextCursor"].as_str() {
                Some(next) if Some(next) != cursor.as_deref() => cursor = Some(next.to_owned()),
                _ => break,
            }
        }
        Ok(items)
    }

    /// Lines of stdout that were not messages.
    fn noise(&mut self, wire: &mut Wire, revision: Option<&str>) {
        if let Some(first) = wire.noise.first() {
            let more = wire.noise.len() - 1;
            let more = if more > 0 { format!(" (and {more} more)") } else { String::new() };
            self.findings.push(
                checks::STDOUT_NOISE
                    .found(revision, format!("stdout carried a line that is not JSON-RPC: `{first}`{more}")),
            );
            wire.noise.clear();
        }
    }
}

/// `initialize`'s params for a strict client that declares nothing.
fn initialize_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "mcp-doctor", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The `_meta` of a 2026-07-28 request from a client that declares nothing.
fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-doctor", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// One finding per check and message, naming every revision it was seen in.
fn merged(findings: Vec<Finding>) -> Vec<Finding> {
    let mut merged: Vec<Finding> = Vec::new();
    for finding in findings {
        match merged.iter_mut().find(|m| m.check == finding.check && m.message == finding.message) {
            Some(existing) => {
                if let Some(revision) = finding.revision {
                    let revisions = existing.revision.get_or_insert_with(String::new);
                    if !revisions.split(", ").any(|r| r == revision) {
                        if !revisions.is_empty() {
                            revisions.push_str(", ");
                        }
                        revisions.push_str(&revision);
                    }
                }
                existing.severity = existing.severity.max(finding.severity);
            }
            None => merged.push(finding),
        }
    }
    merged.sort_by_key(|f| std::cmp::Reverse(f.severity));
    merged
}

fn print_text(target: &Target, spoken: &[Value], findings: &[Finding]) {
    let style = Style::for_stdout();
    println!("{} {}", style.bold("Examined"), target.describe());
    for step in spoken {
        let outcome = match (step["answered"].as_str(), step["refused"].as_str()) {
            (Some(answered), _) => style.green(&format!("answered {answered}")),
            (None, Some(refused)) => style.dim(&format!("not spoken ({refused})")),
            _ => String::new(),
        };
        println!("  {:<16} {}  {outcome}", step["method"].as_str().unwrap_or(""), step["asked"].as_str().unwrap_or(""));
    }
    if findings.is_empty() {
        println!("\n{}", style.green("No problems found."));
        return;
    }
    println!();
    for finding in findings {
        let label = match finding.severity {
            Severity::Error => style.red("error"),
            Severity::Warning => style.yellow("warning"),
        };
        let revision = finding.revision.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
        println!("{label}[{}]{revision}: {}", style.bold(finding.check), finding.message);
        println!("  {} {}", style.dim("why:"), finding.breaks);
        println!("  {} {}", style.dim("fix:"), finding.fix);
    }
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    println!("\n{} error(s), {} warning(s)", errors, findings.len() - errors);
}
