"""A small MCP server written with the official Python SDK (mcp 2.x), for the Rust client's tests.

The Rust integration tests run it (see tests/src/clients.rs, `python_server`, and
tests/tests/client/peers.rs) and talk to it with `mcp_runtime::client::Client`:

    python server.py                 serves over stdio
    python server.py --http <port>   serves Streamable HTTP at http://127.0.0.1:<port>/mcp

It speaks every revision the SDK serves: the initialize handshake (up to 2025-11-25, stateful
HTTP sessions) and 2026-07-28 (`server/discover`, then requests that each carry their own
`_meta`; over HTTP, one POST per request without a session), on the same stdio stream and the
same endpoint. What it offers:

  tool `add`        {a, b: numbers} -> structuredContent {sum} (an outputSchema) and a text
  tool `confirm`    asks the client (elicitation, a form with a boolean `ok`) and answers the
                    text "confirmed" when it accepted with ok = true, else "declined"
  tool `summarize`  {text} -> asks the client to sample (sampling/createMessage) and returns
                    the sampled text as it came
  resource `memo://greeting`   the text "hello from python"
  prompt `greet`    {name} -> one user message naming `name`

`confirm` and `summarize` ask through the SDK's resolvers (`Resolve` with `Elicit` and
`Sample`) rather than a request sent from the tool body: the SDK then sends a request to the
client in the handshake era and answers `input_required` in 2026-07-28, so one tool serves
both eras.
"""

from __future__ import annotations

import argparse
from typing import Annotated

import mcp_types
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
    Sample,
    UserMessage,
)
from pydantic import BaseModel

SDK = "python"

server = MCPServer(
    name="python-sdk-server", version="0.0.0", instructions=f"A test server written with the {SDK} SDK."
)


class Sum(BaseModel):
    sum: float


@server.tool(description="Adds two numbers.")
def add(a: float, b: float) -> Annotated[mcp_types.CallToolResult, Sum]:
    # A CallToolResult annotated with its model: the SDK still publishes Sum as the output
    # schema and checks the structured content against it, and the text can say who served it.
    total = a + b
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=f"{a:g} + {b:g} = {total:g} (from {SDK})")],
        structured_content={"sum": total},
    )


class Confirmation(BaseModel):
    ok: bool


def ask_confirmation() -> Elicit[Confirmation]:
    return Elicit(f"Go ahead? (asked by the {SDK} server)", Confirmation)


@server.tool(description="Asks the user to confirm.")
def confirm(answer: Annotated[ElicitationResult[Confirmation], Resolve(ask_confirmation)]) -> str:
    # The whole outcome is injected (not just the model), so that a decline is an answer too.
    accepted = isinstance(answer, AcceptedElicitation) and answer.data.ok
    return "confirmed" if accepted else "declined"


def ask_sample(text: str) -> Sample:
    prompt = f"Summarize for the {SDK} server: {text}"
    return Sample(
        [mcp_types.SamplingMessage(role="user", content=mcp_types.TextContent(type="text", text=prompt))],
        max_tokens=100,
    )


@server.tool(description="Summarizes a text with the client's model.")
def summarize(text: str, sampled: Annotated[mcp_types.CreateMessageResult, Resolve(ask_sample)]) -> str:
    content = sampled.content
    return content.text if isinstance(content, mcp_types.TextContent) else str(content)


@server.resource("memo://greeting", name="greeting", mime_type="text/plain")
def greeting() -> str:
    return f"hello from {SDK}"


@server.prompt(description="Greets someone.")
def greet(name: str) -> list[UserMessage]:
    return [UserMessage(f"Please greet {name} (a prompt from the {SDK} server).")]


def main() -> None:
    parser = argparse.ArgumentParser(prog="server.py", description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    args = parser.parse_args()
    if args.http is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=args.http, streamable_http_path="/mcp")


if __name__ == "__main__":
    main()
