// Drives one MCP server over stdio with the official TypeScript SDK and reports, as JSON lines
// on stdout, what the SDK saw. The Rust integration tests run it (see tests/src/clients.rs).
//
// Usage: node client.mjs [--mode legacy] --plan '<json array of steps>' -- <server> [args...]
//
// Output: one JSON object per line. First
//   {"op":"connect","serverVersion":{..},"protocolVersion":"..","capabilities":{..},"instructions":..}
// then one line per step: {"op":..,"result":<what the SDK returned>} or
// {"op":..,"error":{"code":..,"message":..,"data":..,"kind":"<error class>"}} when the step threw
// (the plan goes on with the next step). Exit 0 once the plan ran, 2 when the connection could
// not be made, 64 on a usage error; the reason goes to stderr.
//
// Protocol era: SDK 1.32.2 has no choice to make. `Client.connect` always sends `initialize`
// offering its LATEST_PROTOCOL_VERSION (2025-11-25) and accepts any answer in
// SUPPORTED_PROTOCOL_VERSIONS; it knows neither `server/discover` nor 2026-07-28. `--mode`
// therefore accepts only `legacy` (the default), so that both clients share one command line.

import { writeSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const USAGE = "usage: node client.mjs [--mode legacy] --plan '<json array>' -- <server> [args...]";
const MAX_PAGES = 1000;

function emit(value) {
  writeSync(1, `${JSON.stringify(value)}\n`);
}

function fail(status, message) {
  process.stderr.write(`client.mjs: ${message}\n`);
  process.exit(status);
}

function parseArgs(argv) {
  let plan;
  let mode = 'legacy';
  let i = 0;
  for (; i < argv.length && argv[i] !== '--'; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined || value === '--') fail(64, `${flag} needs a value\n${USAGE}`);
    i++;
    if (flag === '--plan') {
      try {
        plan = JSON.parse(value);
      } catch (e) {
        fail(64, `--plan is not JSON: ${e.message}`);
      }
    } else if (flag === '--mode') {
      mode = value;
    } else {
      fail(64, `unknown flag ${flag}\n${USAGE}`);
    }
  }
  const server = argv.slice(i + 1);
  if (!Array.isArray(plan)) fail(64, `--plan must be a JSON array\n${USAGE}`);
  if (server.length === 0) fail(64, `no server command after --\n${USAGE}`);
  if (mode !== 'legacy') {
    fail(64, `--mode ${mode}: SDK 1.32.2 only speaks the initialize handshake (legacy)`);
  }
  return { plan, command: server[0], args: server.slice(1) };
}

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

// One entry per plan op: takes the step and resolves to the fields of its output line.
const OPS = {
  list_tools: () => allPages((p) => client.listTools(p), 'tools'),
  list_resources: () => allPages((p) => client.listResources(p), 'resources'),
  list_resource_templates: () =>
    allPages((p) => client.listResourceTemplates(p), 'resourceTemplates'),
  list_prompts: () => allPages((p) => client.listPrompts(p), 'prompts'),
  call_tool: async (s) => ({
    result: await client.callTool({ name: s.name, arguments: s.arguments ?? {} }),
  }),
  read_resource: async (s) => ({ result: await client.readResource({ uri: s.uri }) }),
  get_prompt: async (s) => ({
    result: await client.getPrompt({ name: s.name, arguments: s.arguments ?? {} }),
  }),
  complete: async (s) => ({
    result: await client.complete({
      ref: s.ref,
      argument: s.argument,
      ...(s.context === undefined ? {} : { context: s.context }),
    }),
  }),
  ping: async () => ({ result: await client.ping() }),
};

const { plan, command, args } = parseArgs(process.argv.slice(2));

const client = new Client({ name: 'mcp-tests-node-client', version: '0.0.0' });
const transport = new StdioClientTransport({
  command,
  args,
  // The whole environment, not the SDK's short default list, so tests can steer the server.
  env: { ...process.env },
  stderr: 'inherit',
});
// The SDK keeps the negotiated version to itself; it hands it to transports that ask for it.
let protocolVersion = null;
transport.setProtocolVersion = (version) => {
  protocolVersion = version;
};

try {
  await client.connect(transport);
} catch (e) {
  fail(2, `could not connect to ${command}: ${e?.stack ?? e}`);
}

emit({
  op: 'connect',
  serverVersion: client.getServerVersion() ?? null,
  protocolVersion,
  capabilities: client.getServerCapabilities() ?? null,
  instructions: client.getInstructions() ?? null,
});

for (const step of plan) {
  const op = step?.op;
  try {
    const run = OPS[op];
    if (run === undefined) throw new Error(`unknown op ${JSON.stringify(op)}`);
    emit({ op, ...(await run(step)) });
  } catch (e) {
    emit({
      op,
      error: {
        code: typeof e?.code === 'number' ? e.code : null,
        message: String(e?.message ?? e),
        data: e?.data ?? null,
        kind: e?.constructor?.name ?? typeof e,
      },
    });
  }
}

await client.close();
process.exit(0);
