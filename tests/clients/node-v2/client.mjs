// Drives one MCP server over stdio with the official TypeScript SDK v2 client
// (`@modelcontextprotocol/client`) and reports, as JSON lines on stdout, what the SDK saw. The
// Rust integration tests run it (see tests/src/clients.rs); it shares its command line and
// output with ../node/client.mjs and ../python/client.py (../common/driver.mjs):
//
//   node client.mjs [--mode legacy|modern|auto] --plan '<json array of steps>' -- <server> [args...]
//
// The connect line also says `mode` (the flag) and `era` (`Client.getProtocolEra()`:
// "legacy" or "modern"). List ops go through the SDK's own page walk (`listTools()` without a
// cursor, `cacheMode: 'refresh'` so the server is asked every time); `pages` counts the list
// requests that walk sent.
//
// --mode picks the client's `versionNegotiation.mode` (the SDK's default is `legacy`):
//   legacy  -> 'legacy': the initialize handshake, offering the newest handshake revision
//              (2025-11-25); requests carry no `_meta` envelope.
//   modern  -> { pin: '2026-07-28' }: `connect()` sends `server/discover` carrying the
//              per-request `_meta` envelope (protocol version, client info, capabilities) and
//              requires the result's `supportedVersions` to hold 2026-07-28; no fallback. Every
//              later request carries the envelope. Capabilities, instructions and the server's
//              identity (`_meta["io.modelcontextprotocol/serverInfo"]`) come from that result.
//   auto    -> 'auto': the same probe; a valid DiscoverResult offering 2026-07-28 selects the
//              modern era, a -32022 naming another modern revision re-probes once, anything
//              else (another error, an unusable result, a timeout or a closed pipe) falls back
//              to the initialize handshake.
// With the SDK's own StdioClientTransport the probe of both `modern` and `auto` runs on a
// short-lived sibling process started with the same command (its stderr discarded); the
// session's process starts once the era is known, so it never sees `server/discover`.

import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { emit, fail, httpAuth, parseArgs, runPlan, standardOps } from '../common/driver.mjs';

const MODES = {
  legacy: { mode: 'legacy' },
  modern: { mode: { pin: '2026-07-28' } },
  auto: { mode: 'auto' },
};

const options = parseArgs(process.argv.slice(2), Object.keys(MODES));
const { plan, mode, url, command, args } = options;

const client = new Client(
  { name: 'mcp-tests-node-v2-client', version: '0.0.0' },
  {
    versionNegotiation: MODES[mode],
    // Answered below, as requests (handshake era) or input-required rounds (2026-07-28).
    capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } },
  },
);

/** A value for one form field: the first choice of an enum, else a fixed one per type. */
function formValue(schema) {
  if (schema.enum?.length) return schema.enum[0];
  if (schema.oneOf?.length) return schema.oneOf[0].const;
  if (schema.type === 'array') {
    const items = schema.items ?? {};
    return [(items.enum ?? (items.anyOf ?? []).map((c) => c.const))[0]];
  }
  return { integer: 1, number: 1.5, boolean: true }[schema.type] ?? 'from the client';
}

client.setRequestHandler('elicitation/create', (request) => {
  const fields = request.params.requestedSchema?.properties;
  if (fields === undefined) return { action: 'accept' };
  return { action: 'accept', content: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, formValue(v)])) };
});
client.setRequestHandler('sampling/createMessage', () => ({
  role: 'assistant',
  content: { type: 'text', text: 'hello from the client' },
  model: 'client-model',
}));
client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///client/root', name: 'client root' }] }));
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

// Requests sent on the session's connection, by method: how many pages a list walk took.
const sent = new Map();
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  if (message?.method !== undefined && message.id !== undefined) {
    sent.set(message.method, (sent.get(message.method) ?? 0) + 1);
  }
  return send(message, options);
};

const METHODS = { tools: 'tools/list', resources: 'resources/list', resourceTemplates: 'resources/templates/list', prompts: 'prompts/list' };

async function walk(list, key) {
  const method = METHODS[key];
  const before = sent.get(method) ?? 0;
  const result = await list(undefined, { cacheMode: 'refresh' });
  return { result: { [key]: result[key] ?? [] }, pages: (sent.get(method) ?? 0) - before };
}

// The log messages (`notifications/message` params) and resource updates received and not
// yet reported.
const logMessages = [];
client.setNotificationHandler('notifications/message', (notification) => {
  logMessages.push(notification.params);
});
const updates = [];
client.setNotificationHandler('notifications/resources/updated', (notification) => {
  updates.push(notification.params);
});

/** Waits up to 5 s for at least one resource update. */
async function awaitUpdates() {
  for (let waited = 0; updates.length === 0 && waited < 5000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return updates.splice(0);
}

// Steps of this driver only: progress and log messages, as the v2 client exposes them.
const talkBackOps = {
  call_tool: async (s) => {
    if (!s.progress) {
      return { result: await client.callTool({ name: s.name, arguments: s.arguments ?? {} }) };
    }
    const progress = [];
    const result = await client.callTool(
      { name: s.name, arguments: s.arguments ?? {} },
      { onprogress: (p) => progress.push(p) },
    );
    return { result, progress };
  },
  set_logging_level: async (s) => ({ result: await client.setLoggingLevel(s.level) }),
  log_messages: async () => ({ result: logMessages.splice(0) }),
  subscribe_resource: async (s) => ({ result: await client.subscribeResource({ uri: s.uri }) }),
  resource_updates: async () => ({ result: await awaitUpdates() }),
};

try {
  await client.connect(transport);
} catch (e) {
  fail(2, `could not connect to ${url ?? command}: ${e?.stack ?? e}`);
}

emit({
  op: 'connect',
  serverVersion: client.getServerVersion() ?? null,
  protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
  capabilities: client.getServerCapabilities() ?? null,
  instructions: client.getInstructions() ?? null,
  mode,
  era: client.getProtocolEra() ?? null,
});

await runPlan(plan, { ...standardOps(client, walk), ...talkBackOps });

await client.close();
process.exit(0);
