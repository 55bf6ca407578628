// Drives one MCP server over stdio with the official TypeScript SDK 1.x and reports, as JSON
// lines on stdout, what the SDK saw. The Rust integration tests run it (see tests/src/clients.rs).
//
// Usage: node client.mjs [--mode legacy] --plan '<json array of steps>' -- <server> [args...]
//
// Output: one JSON object per line. First
//   {"op":"connect","serverVersion":{..},"protocolVersion":"..","capabilities":{..},"instructions":..}
// then one line per step: {"op":..,"result":<what the SDK returned>} or
// {"op":..,"error":{"code":..,"message":..,"data":..,"kind":"<error class>"}} when the step threw
// (the plan goes on with the next step). Exit 0 once the plan ran, 2 when the connection could
// not be made, 64 on a usage error; the reason goes to stderr. The command line, the output and
// the plan loop live in ../common/driver.mjs, shared with ../node-v2/client.mjs.
//
// Protocol era: SDK 1.32.2 has no choice to make. `Client.connect` always sends `initialize`
// offering its LATEST_PROTOCOL_VERSION (2025-11-25) and accepts any answer in
// SUPPORTED_PROTOCOL_VERSIONS; it knows neither `server/discover` nor 2026-07-28. `--mode`
// therefore accepts only `legacy` (the default), so that every driver shares one command line.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { emit, fail, httpAuth, parseArgs, runPlan, standardOps } from '../common/driver.mjs';

const MAX_PAGES = 1000;

// Walks `nextCursor` through every page of a list method, concatenating `key`.
async function allPages(list, key) {
  const items = [];
  let cursor;
  for (let pages = 1; pages <= MAX_PAGES; pages++) {
    const page = await list(cursor === undefined ? {} : { cursor });
    items.push(...(page[key] ?? []));
    cursor = page.nextCursor;
    if (cursor === undefined) return { result: { [key]: items }, pages };
  }
  throw new Error(`${key}: still paging after ${MAX_PAGES} pages`);
}

const options = parseArgs(process.argv.slice(2), ['legacy']);
const { plan, url, command, args } = options;

const client = new Client({ name: 'mcp-tests-node-client', version: '0.0.0' });
// Streamable HTTP with --url; otherwise the server command over stdio.
const transport = url !== undefined
  ? new StreamableHTTPClientTransport(new URL(url), httpAuth(options, ClientCredentialsProvider))
  : new StdioClientTransport({
    command,
    args,
    // The whole environment, not the SDK's short default list, so tests can steer the server.
    env: { ...process.env },
    stderr: 'inherit',
  });
// The SDK keeps the negotiated version to itself; it hands it to transports that ask for it.
let protocolVersion = null;
const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (version) => {
  protocolVersion = version;
  setProtocolVersion?.(version);
};

try {
  await client.connect(transport);
} catch (e) {
  fail(2, `could not connect to ${url ?? command}: ${e?.stack ?? e}`);
}

emit({
  op: 'connect',
  serverVersion: client.getServerVersion() ?? null,
  protocolVersion,
  capabilities: client.getServerCapabilities() ?? null,
  instructions: client.getInstructions() ?? null,
});

await runPlan(plan, standardOps(client, allPages));

await client.close();
process.exit(0);
