"""A small MCP server for the doctor's tests: correct, except for the one mistake named on
its command line (or none, with `none`). Standard library only.

    python3 faulty_server.py MISTAKE            stdio
    python3 faulty_server.py MISTAKE --http     Streamable HTTP on a free loopback port,
                                                whose URL is the first line printed

It speaks the handshake revisions and 2026-07-28 (server/discover, `_meta` on requests).
Each mistake is named after the doctor's check id that must find it.
"""

import json
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
STATELESS = "2026-07-28"
SUPPORTED = HANDSHAKE + [STATELESS]

MISTAKE = sys.argv[1] if len(sys.argv) > 1 else "none"
HTTP = "--http" in sys.argv

OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
TOOLS = [
    {"name": "echo", "description": "Says the text back.", "inputSchema": OBJECT},
    {"name": "shout", "description": "Says the text back, loudly.", "inputSchema": OBJECT},
]
if MISTAKE == "tool-name-invalid":
    TOOLS[1] = dict(TOOLS[1], name="shout it")
if MISTAKE == "tool-schema-invalid":
    TOOLS[1] = dict(TOOLS[1], inputSchema={"type": "object", "required": ["volume"]})
if MISTAKE == "tool-schema-portability":
    TOOLS[1] = dict(
        TOOLS[1],
        inputSchema={
            "type": "object",
            "properties": {"text": {"$ref": "#/$defs/Text"}},
            "$defs": {"Text": {"type": "string"}},
        },
    )

CALLS = {"tools/list": 0}


def capabilities():
    caps = {"tools": {}, "resources": {}, "prompts": {}}
    if MISTAKE == "capability-undeclared":
        del caps["tools"]
    return caps


def result_of(method, params, version):
    """The result of `method`, or an error dict under the key "error"."""
    if method == "ping":
        if MISTAKE == "ping-broken":
            return {"pong": True}
        return {}
    if method == "tools/list":
        CALLS["tools/list"] += 1
        tools = list(TOOLS)
        if MISTAKE == "order-unstable" and CALLS["tools/list"] % 2 == 0:
            tools.reverse()
        return {"tools": tools}
    if method == "tools/call":
        text = (params.get("arguments") or {}).get("text", "")
        return {"content": [{"type": "text", "text": text}]}
    if method == "resources/list":
        return {"resources": [{"uri": "notes://readme", "name": "readme"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read":
        return {"contents": [{"uri": params.get("uri"), "text": "hello"}]}
    if method == "prompts/list":
        if MISTAKE == "capability-unbacked":
            return {"error": {"code": -32601, "message": "prompts/list is not served"}}
        if MISTAKE == "no-answer":
            return None
        return {"prompts": [{"name": "greet", "arguments": []}]}
    if method == "prompts/get":
        return {"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}]}
    if MISTAKE == "unknown-method":
        return {}
    return {"error": {"code": -32601, "message": f"unknown method {method}"}}


def respond(message, session):
    """The messages to send for `message` (a request or a notification)."""
    method = message.get("method")
    params = message.get("params") or {}
    if "id" not in message:
        if method == "notifications/initialized" and session is not None:
            session["initialized"] = True
            if MISTAKE == "list-changed-undeclared":
                return [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]
        return []
    msg_id = message["id"]
    meta = params.get("_meta") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        answered = asked if asked in HANDSHAKE or MISTAKE == "version-negotiation" else HANDSHAKE[-1]
        info = {"name": "faulty", "version": "1.0.0"}
        if MISTAKE == "initialize-malformed":
            del info["version"]
        out = [
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "result": {"protocolVersion": answered, "capabilities": capabilities(), "serverInfo": info},
            }
        ]
        if MISTAKE == "early-message":
            out.append({"jsonrpc": "2.0", "id": "early-1", "method": "roots/list"})
        return out
    if method == "server/discover" or "io.modelcontextprotocol/protocolVersion" in meta:
        version = meta.get("io.modelcontextprotocol/protocolVersion")
        if version != STATELESS:
            error = {"code": -32022, "message": "unsupported version", "data": {"supported": SUPPORTED, "requested": version}}
            return [{"jsonrpc": "2.0", "id": msg_id, "error": error}]
        if method == "server/discover":
            result = {"supportedVersions": SUPPORTED, "capabilities": capabilities(), "resultType": "complete"}
            return [{"jsonrpc": "2.0", "id": msg_id, "result": result}]
    result = result_of(method, params, meta)
    if result is None:
        return []
    if "error" in result and len(result) == 1:
        reply = {"jsonrpc": "2.0", "id": msg_id, "error": result["error"]}
        if MISTAKE == "error-malformed":
            reply["result"] = {}
        return [reply]
    reply = {"jsonrpc": "2.0", "id": msg_id, "result": result}
    if MISTAKE == "message-malformed" and method == "ping":
        del reply["jsonrpc"]
    return [reply]


def serve_stdio():
    if MISTAKE == "stdout-noise":
        print("faulty server starting", flush=True)
    session = {}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "method" not in message:
            continue  # a response to our own request
        for out in respond(message, session):
            sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


SESSIONS = {}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None, headers=()):
        data = b"" if body is None else json.dumps(body).encode()
        sse = MISTAKE == "http-accept" and body is not None and status == 200
        if sse:
            data = b"event: message\ndata: " + data + b"\n\n"
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_DELETE(self):
        with LOCK:
            SESSIONS.pop(self.headers.get("Mcp-Session-Id"), None)
        self.reply(200)

    def do_GET(self):
        self.reply(405)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        origin = self.headers.get("Origin")
        if origin and "127.0.0.1" not in origin and "localhost" not in origin and MISTAKE != "http-origin":
            return self.reply(403, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "forbidden origin"}})
        try:
            message = json.loads(raw)
        except ValueError:
            return self.reply(400, {"jsonrpc": "2.0", "error": {"code": -32700, "message": "parse error"}})
        method = message.get("method")
        meta = (message.get("params") or {}).get("_meta") or {}
        if method == "server/discover" or "io.modelcontextprotocol/protocolVersion" in meta:
            if MISTAKE != "http-header-mismatch" and "id" in message and self.headers.get("Mcp-Method") != method:
                error = {"code": -32020, "message": "Mcp-Method does not match the body"}
                return self.reply(400, {"jsonrpc": "2.0", "id": message.get("id"), "error": error})
            out = respond(message, None)
            if not out:
                return self.reply(202)
            status = 400 if "error" in out[0] and out[0]["error"]["code"] == -32022 else 200
            return self.reply(status, out[0])
        session_id = self.headers.get("Mcp-Session-Id")
        if method == "initialize":
            session_id = uuid.uuid4().hex
            with LOCK:
                SESSIONS[session_id] = {}
            out = respond(message, SESSIONS[session_id])
            return self.reply(200, out[0], [("Mcp-Session-Id", session_id)])
        with LOCK:
            session = SESSIONS.get(session_id)
        if session_id is None:
            return self.reply(400, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "no session"}})
        if session is None:
            if MISTAKE != "http-session":
                return self.reply(404, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "no such session"}})
            session = {}
        version = self.headers.get("MCP-Protocol-Version")
        if version is not None and version not in HANDSHAKE and MISTAKE != "http-protocol-version":
            return self.reply(400, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "unsupported version"}})
        out = respond(message, session)
        if "id" not in message:
            if MISTAKE == "http-notification-status":
                return self.reply(200, {})
            return self.reply(202)
        if not out:
            return  # no answer: the request hangs, as over stdio
        self.reply(200, out[-1] if out[-1].get("id") == message["id"] else out[0])


def serve_http():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if HTTP:
        serve_http()
    else:
        serve_stdio()
