"""Drives one MCP server over stdio with the official Python SDK (mcp 2.x).

Reports, as JSON lines on stdout, what the SDK saw. The Rust integration tests run it (see
tests/src/clients.rs); it is the twin of ../node/client.mjs and shares its command line:

    python client.py [--mode legacy|modern|auto] --plan '<json array of steps>' -- <server> [args...]

Output: one JSON object per line. First
    {"op":"connect","serverVersion":{..},"protocolVersion":"..","capabilities":{..},"instructions":..,"mode":..}
then one line per step: {"op":..,"result":<what the SDK returned>} or
{"op":..,"error":{"code":..,"message":..,"data":..,"kind":"<exception class>"}} when the step
raised (the plan goes on with the next step). Exit 0 once the plan ran, 2 when the connection
could not be made, 64 on a usage error; the reason goes to stderr.

--mode picks how `mcp.Client` settles the protocol era (its `mode=` argument):
  legacy  -> mode="legacy": the initialize handshake (initialize, then
             notifications/initialized), offering the newest handshake-era revision
             (2025-11-25); every later request carries no per-request `_meta` envelope.
  modern  -> mode="2026-07-28": no wire exchange at connect. The client adopts that revision
             outright with a synthesized DiscoverResult (so `capabilities` here is empty and
             `serverVersion` null: the server was never asked), then stamps every request's
             `_meta` with the protocol version, client info and client capabilities.
  auto    -> mode="auto" (the SDK's own default): sends `server/discover` at 2026-07-28; a
             valid DiscoverResult naming a modern revision is adopted (capabilities and the
             optional `_meta` serverInfo come from it); -32022 naming another modern revision
             re-probes once; any other JSON-RPC error, an unparseable result or a result
             listing only handshake-era revisions falls back to the initialize handshake.
The default here is legacy, unlike the SDK's, so that both clients begin with the handshake.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio
import pydantic
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
import mcp_types
from mcp_types import Implementation, PromptReference, ResourceTemplateReference

MODES = {"legacy": "legacy", "modern": "2026-07-28", "auto": "auto"}
MAX_PAGES = 1000
REQUEST_TIMEOUT_SECONDS = 60.0
_REFERENCE = pydantic.TypeAdapter(PromptReference | ResourceTemplateReference)


def emit(value: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def dump(model: Any) -> Any:
    """The JSON shape of an SDK model, keeping only what the server (or the SDK) set."""
    if model is None:
        return None
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


async def all_pages(list_page: Any, key: str) -> dict[str, Any]:
    """Follows `nextCursor` through every page of a list method, concatenating `key`."""
    items: list[Any] = []
    cursor = None
    for pages in range(1, MAX_PAGES + 1):
        page = dump(await list_page(cursor=cursor))
        items.extend(page.get(key, []))
        cursor = page.get("nextCursor")
        if cursor is None:
            return {"result": {key: items}, "pages": pages}
    raise RuntimeError(f"{key}: still paging after {MAX_PAGES} pages")


# What this client answers the server's questions with (elicitation, sampling, roots), in
# both eras: requests in the handshake era, input-required rounds in 2026-07-28.
SAMPLED_TEXT = "hello from the client"
ROOTS = [{"uri": "file:///client/root", "name": "client root"}]


def form_value(schema: dict[str, Any]) -> Any:
    """A value for one form field: the first choice of an enum, else a fixed one per type."""
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("oneOf"):
        return schema["oneOf"][0]["const"]
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items", {})
        return [(items.get("enum") or [c["const"] for c in items.get("anyOf", [])])[0]]
    return {"integer": 1, "number": 1.5, "boolean": True}.get(kind, "from the client")


async def on_elicit(_context: Any, params: Any) -> Any:
    schema = getattr(params, "requested_schema", None)
    if schema is None:  # URL mode
        return mcp_types.ElicitResult(action="accept")
    fields = schema.get("properties", {}) if isinstance(schema, dict) else dump(schema).get("properties", {})
    return mcp_types.ElicitResult(action="accept", content={k: form_value(v) for k, v in fields.items()})


async def on_sample(_context: Any, _params: Any) -> Any:
    return mcp_types.CreateMessageResult(
        role="assistant", content=mcp_types.TextContent(type="text", text=SAMPLED_TEXT), model="client-model"
    )


async def on_list_roots(_context: Any) -> Any:
    return mcp_types.ListRootsResult(roots=[mcp_types.Root(**root) for root in ROOTS])


# The log messages (`notifications/message` params) received and not yet reported.
LOG_MESSAGES: list[Any] = []


async def on_log_message(params: Any) -> None:
    LOG_MESSAGES.append(dump(params))


# The resource updates (`notifications/resources/updated` params) received and not yet reported.
UPDATES: list[Any] = []


async def on_message(message: Any) -> None:
    if isinstance(message, Exception):
        return
    notification = dump(message)
    if isinstance(notification, dict) and notification.get("method") == "notifications/resources/updated":
        UPDATES.append(notification.get("params"))


async def await_updates() -> list[Any]:
    """Waits up to 5 s for at least one resource update."""
    with anyio.move_on_after(5):
        while not UPDATES:
            await anyio.sleep(0.02)
    updates = list(UPDATES)
    UPDATES.clear()
    return updates


async def run_step(client: Client, step: dict[str, Any]) -> dict[str, Any]:
    """Runs one plan step and returns the fields of its output line (besides `op`)."""
    op = step.get("op")
    if op == "call_tool" and step.get("progress"):
        progress: list[dict[str, Any]] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append({"progress": value, "total": total, "message": message})

        result = await client.call_tool(step["name"], step.get("arguments") or {}, progress_callback=on_progress)
        return {"result": dump(result), "progress": progress}
    if op == "set_logging_level":
        return {"result": dump(await client.set_logging_level(step["level"]))}
    if op == "subscribe_resource":
        return {"result": dump(await client.subscribe_resource(step["uri"]))}
    if op == "resource_updates":
        return {"result": await await_updates()}
    if op == "log_messages":
        messages = list(LOG_MESSAGES)
        LOG_MESSAGES.clear()
        return {"result": messages}
    if op == "list_tools":
        return await all_pages(client.list_tools, "tools")
    if op == "list_resources":
        return await all_pages(client.list_resources, "resources")
    if op == "list_resource_templates":
        return await all_pages(client.list_resource_templates, "resourceTemplates")
    if op == "list_prompts":
        return await all_pages(client.list_prompts, "prompts")
    if op == "call_tool":
        return {"result": dump(await client.call_tool(step["name"], step.get("arguments") or {}))}
    if op == "read_resource":
        return {"result": dump(await client.read_resource(step["uri"]))}
    if op == "get_prompt":
        return {"result": dump(await client.get_prompt(step["name"], step.get("arguments") or {}))}
    if op == "complete":
        context = (step.get("context") or {}).get("arguments")
        result = await client.complete(_REFERENCE.validate_python(step["ref"]), step["argument"], context)
        return {"result": dump(result)}
    if op == "ping":
        return {"result": dump(await client.session.send_ping())}
    raise ValueError(f"unknown op {json.dumps(op)}")


def unwrap(error: BaseException) -> BaseException:
    """The one exception inside nested exception groups (anyio task groups wrap errors)."""
    while len(getattr(error, "exceptions", ())) == 1:
        error = error.exceptions[0]  # type: ignore[attr-defined]
    return error


def error_line(error: BaseException) -> dict[str, Any]:
    error = unwrap(error)
    if isinstance(error, MCPError):
        code, message, data = error.code, error.message, error.data
    else:
        code, message, data = None, str(error), None
    return {"code": code, "message": message, "data": data, "kind": type(error).__name__}


async def main(
    mode: str, plan: list[Any], command: str | None, args: list[str], log_level: str | None, url: str | None
) -> int:
    # Streamable HTTP with --url; otherwise the server command over stdio.
    server: Any = url if url is not None else StdioServerParameters(command=command, args=args, env=dict(os.environ))
    client = Client(
        server,
        mode=MODES[mode],
        client_info=Implementation(name="mcp-tests-python-client", version="0.0.0"),
        # The tests look at what the server answers, every time: no response cache.
        cache=None,
        # A request unanswered for this long fails its step (the SDK waits forever by default);
        # the same as the TypeScript SDK's default request timeout.
        read_timeout_seconds=REQUEST_TIMEOUT_SECONDS,
        logging_callback=on_log_message,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        list_roots_callback=on_list_roots,
        message_handler=on_message,
        # 2026-07-28: the level every request opts in to (`_meta` logLevel); none by default.
        log_level=log_level,
    )
    try:
        await client.__aenter__()
    except Exception as error:  # noqa: BLE001 - anything that stops the connection is reported
        print(f"client.py: could not connect to {url or command}: {unwrap(error)!r}", file=sys.stderr)
        return 2
    try:
        emit(
            {
                "op": "connect",
                "serverVersion": dump(client.server_info),
                "protocolVersion": client.protocol_version,
                "capabilities": dump(client.server_capabilities),
                "instructions": client.instructions,
                "mode": mode,
            }
        )
        for step in plan:
            op = step.get("op") if isinstance(step, dict) else None
            try:
                emit({"op": op, **await run_step(client, step)})
            except Exception as error:  # noqa: BLE001 - a failing step is reported, not fatal
                emit({"op": op, "error": error_line(error)})
    finally:
        await client.__aexit__(None, None, None)
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="client.py", description="Drive an MCP server over stdio.")
    parser.error = lambda message: parser.exit(64, f"client.py: {message}\n{parser.format_usage()}")  # type: ignore[method-assign]
    parser.add_argument("--mode", choices=sorted(MODES), default="legacy")
    parser.add_argument("--plan", required=True, help="JSON array of steps")
    parser.add_argument("--log-level", default=None, help="2026-07-28: the log level every request asks for")
    parser.add_argument("--url", default=None, help="a Streamable HTTP endpoint, instead of a server command")
    parser.add_argument("server", nargs="*", help="the server command and its arguments, after --")
    parsed = parser.parse_args(argv)
    try:
        parsed.plan = json.loads(parsed.plan)
    except json.JSONDecodeError as error:
        parser.exit(64, f"client.py: --plan is not JSON: {error}\n")
    if not isinstance(parsed.plan, list):
        parser.exit(64, "client.py: --plan must be a JSON array\n")
    if not parsed.server and parsed.url is None:
        parser.exit(64, "client.py: no server command after --, and no --url\n")
    return parsed


if __name__ == "__main__":
    ns = parse_args(sys.argv[1:])
    command = ns.server[0] if ns.server else None
    sys.exit(anyio.run(main, ns.mode, ns.plan, command, ns.server[1:], ns.log_level, ns.url))
