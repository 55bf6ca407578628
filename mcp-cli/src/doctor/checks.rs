//! The doctor's checks: each a stable id, a severity, why it breaks clients and how to fix
//! it. The ids are part of the command's interface (`--json` prints them; scripts match on
//! them), so they never change meaning.

use serde::Serialize;

/// How bad a finding is: an error breaks clients (the doctor exits 1), a warning breaks some.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    Warning,
    Error,
}

/// One check the doctor makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Check {
    pub(crate) id: &'static str,
    pub(crate) severity: Severity,
    /// The mistake, in a line.
    pub(crate) means: &'static str,
    /// What a client does when a server makes this mistake.
    pub(crate) breaks: &'static str,
    /// How to fix it.
    pub(crate) fix: &'static str,
}

const fn check(
    id: &'static str,
    severity: Severity,
    means: &'static str,
    breaks: &'static str,
    fix: &'static str,
) -> Check {
    Check { id, severity, means, breaks, fix }
}

use Severity::{Error, Warning};

pub(crate) const STDOUT_NOISE: Check = check(
    "stdout-noise",
    Error,
    "a line on a stdio server's stdout that is not a JSON-RPC message (a log line printed to stdout)",
    "stdout is the protocol's channel: a client reading a line that is not JSON-RPC fails to parse it and may drop the connection",
    "write logs to stderr (in Rust, `eprintln!` or a tracing subscriber writing to stderr; in Python, `print(..., file=sys.stderr)`; in Node, `console.error`)",
);
pub(crate) const INITIALIZE_MALFORMED: Check = check(
    "initialize-malformed",
    Error,
    "the `initialize` (or `server/discover`) answer breaks JSON-RPC or the revision's schema: `jsonrpc`, `id`, `protocolVersion`, `capabilities`, `serverInfo` name and version",
    "a client cannot read the server's revision, capabilities or name from the answer and ends the connection",
    "answer `initialize` (2026-07-28: `server/discover`) with `jsonrpc: \"2.0\"`, the request's `id`, and a result with `protocolVersion`, a `capabilities` object and `serverInfo` with `name` and `version`",
);
pub(crate) const VERSION_NEGOTIATION: Check = check(
    "version-negotiation",
    Error,
    "an unknown version echoed back, a supported version answered with another, an unknown one refused with an error (2026-07-28: not -32022)",
    "a client that asked a version the server does not speak believes it does, or a client that asked one it does speak is pushed to another, or gets an error instead of the version it could fall back to",
    "answer the requested version when you support it; otherwise answer the latest version you support (never echo an unknown one, never refuse with an error); in 2026-07-28, answer an unknown version with -32022 listing `supported`",
);
pub(crate) const CAPABILITY_UNDECLARED: Check = check(
    "capability-undeclared",
    Error,
    "a list method answers items of a capability the server did not declare",
    "clients only ask for what the capabilities declare: the items are never listed (\"no tools available\")",
    "declare the capability (`tools`, `resources`, `prompts`) in the `initialize` answer whenever you serve its items",
);
pub(crate) const CAPABILITY_UNBACKED: Check = check(
    "capability-unbacked",
    Error,
    "a declared capability whose list method answers an error",
    "a client asks for the list the capability promises, gets an error, and may show the whole server as broken",
    "serve the list methods of every capability you declare (an empty list is fine), or stop declaring it",
);
pub(crate) const EARLY_MESSAGE: Check = check(
    "early-message",
    Error,
    "before `notifications/initialized`, a request other than `ping` or a notification other than `notifications/message`",
    "before `notifications/initialized` the client is not ready: it drops the message or fails",
    "send requests (other than `ping`) and notifications (other than `notifications/message`) only after the client's `notifications/initialized`",
);
pub(crate) const LIST_CHANGED_UNDECLARED: Check = check(
    "list-changed-undeclared",
    Error,
    "a `notifications/*/list_changed` without `listChanged: true` for that capability",
    "a client that was told the list is fixed ignores the change and keeps a stale list (old schemas, missing tools)",
    "declare `listChanged: true` in the capability whose list you announce changes of",
);
pub(crate) const TOOL_SCHEMA_INVALID: Check = check(
    "tool-schema-invalid",
    Error,
    "an `inputSchema` that is not an object schema, not valid JSON Schema, or requires an undefined property; an `outputSchema` not of type object (before 2026-07-28)",
    "clients validate the arguments they send against `inputSchema` (and results against `outputSchema`): an invalid schema makes the tool uncallable, or the whole list rejected",
    "give every tool an `inputSchema` of `\"type\": \"object\"` that is valid JSON Schema 2020-12, `required` naming only properties it defines, and (before 2026-07-28) an `outputSchema` of `\"type\": \"object\"`",
);
pub(crate) const TOOL_SCHEMA_PORTABILITY: Check = check(
    "tool-schema-portability",
    Warning,
    "a valid schema strict clients reject: `$ref`, a bare boolean subschema, a `null` union in an output schema",
    "the schema is valid, but strict clients (and some model providers) reject `$ref`, bare boolean subschemas or `null` unions, and drop the tool",
    "inline referenced definitions, write `{}` for \"anything\" instead of `true`, and make an optional property optional (left out of `required`) instead of a `null` union",
);
pub(crate) const TOOL_NAME_INVALID: Check = check(
    "tool-name-invalid",
    Error,
    "a tool name outside 1-128 characters of `A-Za-z0-9_-.`, or two tools with one name",
    "clients and model providers refuse names outside 1-128 characters of `A-Za-z0-9_-.`; of two tools with one name, one is unreachable",
    "name tools with 1-128 characters of letters, digits, `_`, `-` and `.`, each name once",
);
pub(crate) const ORDER_UNSTABLE: Check = check(
    "order-unstable",
    Warning,
    "two `tools/list` calls give the same tools in different orders (an error in 2026-07-28)",
    "the tool list is part of the model's prompt: a list in a different order each time defeats prompt caching (2026-07-28 asks for a deterministic order)",
    "list tools in a fixed order (by name, or by registration)",
);
pub(crate) const UNKNOWN_METHOD: Check = check(
    "unknown-method",
    Error,
    "an unknown method not answered with -32601",
    "a client probing for a method (the 2026-07-28 fallback, an optional feature) waits forever or misreads the answer",
    "answer a method you do not know with the JSON-RPC error -32601 (method not found)",
);
pub(crate) const ERROR_MALFORMED: Check = check(
    "error-malformed",
    Error,
    "an error without an integer `code` or a string `message`, or a response with both `result` and `error`",
    "a client cannot read the error (no code, no message) or cannot tell success from failure, and fails the request with a parse error",
    "answer errors as `{\"jsonrpc\": \"2.0\", \"id\": ..., \"error\": {\"code\": <integer>, \"message\": <string>}}`, never with a `result` too",
);
pub(crate) const MESSAGE_MALFORMED: Check = check(
    "message-malformed",
    Error,
    "an answer without `jsonrpc: \"2.0\"`, with another request's `id`, or with neither `result` nor `error`",
    "a client matches answers to requests by `id` and checks `jsonrpc`: an answer without them is never matched, and the request hangs",
    "answer each request once, with `jsonrpc: \"2.0\"` and the request's `id`",
);
pub(crate) const PING_BROKEN: Check = check(
    "ping-broken",
    Error,
    "`ping` not answered with an empty result",
    "clients ping to check a connection is alive; a wrong answer makes them close it",
    "answer `ping` with an empty result: `{\"jsonrpc\": \"2.0\", \"id\": ..., \"result\": {}}`",
);
pub(crate) const NO_ANSWER: Check = check(
    "no-answer",
    Error,
    "a request not answered within `--timeout`, or the server exited",
    "the client waits for an answer that never comes (or the server exited): the request hangs until its timeout",
    "answer every request, errors included; do not exit while a client is connected",
);
pub(crate) const HTTP_ORIGIN: Check = check(
    "http-origin",
    Error,
    "a request with a foreign `Origin` served instead of refused with 403",
    "without an `Origin` check, a web page the user visits can reach a local server (DNS rebinding) and call its tools",
    "answer a request whose `Origin` header is not one you allow with 403 Forbidden",
);
pub(crate) const HTTP_NOTIFICATION_STATUS: Check = check(
    "http-notification-status",
    Error,
    "a POSTed notification not answered with 202 Accepted",
    "a client posting a notification expects 202 Accepted with no body; another status reads as a failure",
    "answer a POSTed notification (or response) with 202 Accepted and an empty body",
);
pub(crate) const HTTP_SESSION: Check = check(
    "http-session",
    Error,
    "an unknown `Mcp-Session-Id` not answered with 404, or a missing one served (a warning: the spec says SHOULD 400)",
    "a client whose session expired must be told so with 404 to start a new one; a request without the session id must not be served as someone else's",
    "answer a request with an unknown `Mcp-Session-Id` with 404, and one without it (when you use sessions) with 400",
);
pub(crate) const HTTP_PROTOCOL_VERSION: Check = check(
    "http-protocol-version",
    Error,
    "an unsupported `MCP-Protocol-Version` header not answered with 400",
    "a request whose `MCP-Protocol-Version` header names a version the server does not speak is served as if it spoke it",
    "answer a request with an invalid or unsupported `MCP-Protocol-Version` header with 400 Bad Request",
);
pub(crate) const HTTP_ACCEPT: Check = check(
    "http-accept",
    Error,
    "an event stream sent to a request whose `Accept` lists only `application/json`",
    "a client that accepts only `application/json` cannot read an event stream",
    "answer with JSON when the request's `Accept` does not list `text/event-stream` (or refuse it with 406)",
);
pub(crate) const HTTP_HEADER_MISMATCH: Check = check(
    "http-header-mismatch",
    Error,
    "(2026-07-28) an `Mcp-Method` header that contradicts the body not answered with 400 and -32020",
    "2026-07-28 gateways route on `Mcp-Method` and `Mcp-Name`: a server that does not check them against the body can be made to run a method other than the one a gateway allowed",
    "answer a request whose `Mcp-Method` or `Mcp-Name` header does not match its body with 400 and the JSON-RPC error -32020",
);

/// Every check, in the order the README's table lists them.
pub(crate) const ALL: [Check; 22] = [
    STDOUT_NOISE,
    INITIALIZE_MALFORMED,
    VERSION_NEGOTIATION,
    CAPABILITY_UNDECLARED,
    CAPABILITY_UNBACKED,
    EARLY_MESSAGE,
    LIST_CHANGED_UNDECLARED,
    TOOL_SCHEMA_INVALID,
    TOOL_SCHEMA_PORTABILITY,
    TOOL_NAME_INVALID,
    ORDER_UNSTABLE,
    UNKNOWN_METHOD,
    ERROR_MALFORMED,
    MESSAGE_MALFORMED,
    PING_BROKEN,
    NO_ANSWER,
    HTTP_ORIGIN,
    HTTP_NOTIFICATION_STATUS,
    HTTP_SESSION,
    HTTP_PROTOCOL_VERSION,
    HTTP_ACCEPT,
    HTTP_HEADER_MISMATCH,
];

/// One problem found: which check, in which revision, what was seen.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Finding {
    pub(crate) check: &'static str,
    pub(crate) severity: Severity,
    /// The revision spoken when it was seen (`None`: before one was agreed, or in all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) revision: Option<String>,
    pub(crate) message: String,
    pub(crate) breaks: &'static str,
    pub(crate) fix: &'static str,
}

impl Check {
    /// A finding of this check at its own severity.
    pub(crate) fn found(self, revision: Option<&str>, message: impl Into<String>) -> Finding {
        self.found_as(self.severity, revision, message)
    }

    /// A finding of this check at `severity` (a SHOULD of the spec is a warning).
    pub(crate) fn found_as(self, severity: Severity, revision: Option<&str>, message: impl Into<String>) -> Finding {
        Finding {
            check: self.id,
            severity,
            revision: revision.map(str::to_owned),
            message: message.into(),
            breaks: self.breaks,
            fix: self.fix,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_ids_are_unique_and_kebab_case() {
        let ids: Vec<&str> = ALL.iter().map(|c| c.id).collect();
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
        assert!(ids.iter().all(|id| id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')), "{ids:?}");
    }
}
