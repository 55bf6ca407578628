// A small MCP server written with the official TypeScript SDK 1.x, for the Rust client's tests.
// The Rust integration tests run it (see tests/src/clients.rs, `node_server`, and
// tests/tests/client/peers.rs) and talk to it with `mcp_runtime::client::Client`:
//
//   node server.mjs                 serves over stdio
//   node server.mjs --http <port>   serves Streamable HTTP at http://127.0.0.1:<port>/mcp,
//                                   with a session per `initialize` (Mcp-Session-Id)
//
// SDK 1.32.2 speaks only the handshake era (initialize, up to 2025-11-25): it knows neither
// `server/discover` nor 2026-07-28. Over stdio it answers `server/discover` with "method not
// found"; over HTTP a request outside a session that is not `initialize` gets 400.
//
// What it offers:
//   tool `add`        {a, b: numbers} -> structuredContent {sum} (an outputSchema) and a text
//   tool `confirm`    asks the client (elicitation/create, a form with a boolean `ok`) and
//                     answers the text "confirmed" when it accepted with ok = true, else
//                     "declined"
//   tool `summarize`  {text} -> asks the client to sample (sampling/createMessage) and returns
//                     the sampled text as it came
//   resource `memo://greeting`   the text "hello from node"
//   prompt `greet`    {name} -> one user message naming `name`

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const SDK = 'node';

// One McpServer per connection: an McpServer serves a single transport, and each HTTP session
// is a transport of its own.
function makeServer() {
  const server = new McpServer(
    { name: 'node-sdk-server', version: '0.0.0' },
    { instructions: `A test server written with the ${SDK} SDK.` },
  );

  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => {
      const sum = a + b;
      return {
        content: [{ type: 'text', text: `${a} + ${b} = ${sum} (from ${SDK})` }],
        structuredContent: { sum },
      };
    },
  );

  server.registerTool(
    'confirm',
    { description: 'Asks the user to confirm.' },
    async (extra) => {
      // Related to the tool call, so that over HTTP the question travels on the call's own
      // response stream rather than on the session's standalone one.
      const answer = await server.server.elicitInput(
        {
          mode: 'form',
          message: `Go ahead? (asked by the ${SDK} server)`,
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        },
        { relatedRequestId: extra.requestId },
      );
      const confirmed = answer.action === 'accept' && answer.content?.ok === true;
      return { content: [{ type: 'text', text: confirmed ? 'confirmed' : 'declined' }] };
    },
  );

  server.registerTool(
    'summarize',
    { description: "Summarizes a text with the client's model.", inputSchema: { text: z.string() } },
    async ({ text }, extra) => {
      const asked = `Summarize for the ${SDK} server: ${text}`;
      const sampled = await server.server.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: asked } }], maxTokens: 100 },
        { relatedRequestId: extra.requestId },
      );
      // A result of a sampling with tools may hold several blocks; this one asks for none.
      const content = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
      const said = content?.type === 'text' ? content.text : JSON.stringify(content);
      return { content: [{ type: 'text', text: said }] };
    },
  );

  server.registerResource(
    'greeting',
    'memo://greeting',
    { mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `hello from ${SDK}` }] }),
  );

  server.registerPrompt(
    'greet',
    { description: 'Greets someone.', argsSchema: { name: z.string() } },
    ({ name }) => {
      const text = `Please greet ${name} (a prompt from the ${SDK} server).`;
      return { messages: [{ role: 'user', content: { type: 'text', text } }] };
    },
  );

  return server;
}

// Reads a request's body as JSON; `undefined` when it has none or it is not JSON (the
// transport then answers the parse error itself).
async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function refuse(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function serveHttp(port) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      // The spec asks every server to refuse a foreign Origin (DNS rebinding); the SDK's
      // transport leaves that to the application, as here.
      const origin = req.headers.origin;
      if (origin !== undefined && !/^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(origin)) {
        refuse(res, 403, 'Forbidden origin');
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (sessionId !== undefined && transport === undefined) {
        refuse(res, 404, 'Session not found');
        return;
      }
      if (transport === undefined) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          refuse(res, 400, 'Bad Request: no session (send initialize first)');
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
        };
        await makeServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      console.error('server.mjs:', error);
      if (!res.headersSent) refuse(res, 500, 'Internal server error');
    }
  });
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', resolve);
  });
  console.error(`server.mjs: listening on http://127.0.0.1:${port}/mcp`);
}

const argv = process.argv.slice(2);
if (argv[0] === '--http') {
  const port = Number(argv[1]);
  if (argv.length !== 2 || !Number.isInteger(port) || port <= 0 || port > 65535) {
    console.error('usage: node server.mjs [--http <port>]');
    process.exit(64);
  }
  await serveHttp(port);
} else if (argv.length === 0) {
  await makeServer().connect(new StdioServerTransport());
} else {
  console.error('usage: node server.mjs [--http <port>]');
  process.exit(64);
}
