// What the Node.js drivers (../node/client.mjs on SDK 1.x, ../node-v2/client.mjs on the v2
// client package) have in common, SDK aside: the command line, the output lines and the plan
// loop. It imports nothing, so each driver keeps resolving its SDK from its own node_modules.
//
// Command line: <driver> [--mode MODE] --plan '<json array of steps>' -- <server> [args...]
// or, over Streamable HTTP: <driver> [--mode MODE] --plan '<json>' --url URL [--bearer TOKEN]
// [--oauth-client ID:SECRET --oauth-issuer ISSUER [--oauth-scope SCOPES]]: the token sent
// first, and the client-credentials grant the SDK's own OAuth support runs on a 401 or a
// step-up 403 (asking for SCOPES).
// Output: one JSON object per line; exit 0 once the plan ran, 2 when the connection could not
// be made, 64 on a usage error (the reason goes to stderr). See ../README.md.

import { writeSync } from 'node:fs';
import { basename } from 'node:path';

const PROGRAM = basename(process.argv[1] ?? 'client.mjs');

/** Writes one output line. */
export function emit(value) {
  writeSync(1, `${JSON.stringify(value)}\n`);
}

/** Exits with `status` after writing `message` to stderr. */
export function fail(status, message) {
  process.stderr.write(`${PROGRAM}: ${message}\n`);
  process.exit(status);
}

/**
 * Reads the command line. `modes` lists the accepted `--mode` values, the first being the
 * default. Returns `{ plan, mode, command, args }`; exits 64 on a usage error.
 */
export function parseArgs(argv, modes) {
  const usage = `usage: node ${PROGRAM} [--mode ${modes.join('|')}] --plan '<json array>' (--url <http url> [--bearer TOKEN] [--oauth-client ID:SECRET --oauth-issuer URL] | -- <server> [args...])`;
  let plan;
  let url;
  let bearer;
  let oauthClient;
  let oauthIssuer;
  let oauthScope;
  let mode = modes[0];
  let i = 0;
  for (; i < argv.length && argv[i] !== '--'; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined || value === '--') fail(64, `${flag} needs a value\n${usage}`);
    i++;
    if (flag === '--plan') {
      try {
        plan = JSON.parse(value);
      } catch (e) {
        fail(64, `--plan is not JSON: ${e.message}`);
      }
    } else if (flag === '--mode') {
      mode = value;
    } else if (flag === '--url') {
      url = value;
    } else if (flag === '--bearer') {
      bearer = value;
    } else if (flag === '--oauth-client') {
      const [clientId, clientSecret] = value.split(':');
      if (!clientId || !clientSecret) fail(64, `--oauth-client takes ID:SECRET\n${usage}`);
      oauthClient = { clientId, clientSecret };
    } else if (flag === '--oauth-issuer') {
      oauthIssuer = value;
    } else if (flag === '--oauth-scope') {
      oauthScope = value;
    } else {
      fail(64, `unknown flag ${flag}\n${usage}`);
    }
  }
  const server = argv.slice(i + 1);
  if (!Array.isArray(plan)) fail(64, `--plan must be a JSON array\n${usage}`);
  if (server.length === 0 && url === undefined) fail(64, `no server command after --, and no --url\n${usage}`);
  if (!modes.includes(mode)) fail(64, `--mode ${mode}: this driver accepts ${modes.join(', ')}\n${usage}`);
  if ((oauthClient === undefined) !== (oauthIssuer === undefined)) {
    fail(64, `--oauth-client and --oauth-issuer go together\n${usage}`);
  }
  const oauth = oauthClient && { ...oauthClient, issuer: oauthIssuer, scope: oauthScope };
  return { plan, mode, url, bearer, oauth, command: server[0], args: server.slice(1) };
}

/**
 * The HTTP transport's options for `--bearer` and `--oauth-client`: an OAuth provider of
 * `Provider` (the SDK's `ClientCredentialsProvider`) holding the bearer token as its first
 * token, or the token as a plain header when there are no client credentials.
 */
export function httpAuth({ bearer, oauth }, Provider) {
  if (oauth !== undefined) {
    const authProvider = new Provider({
      clientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
      expectedIssuer: oauth.issuer,
      scope: oauth.scope,
    });
    if (bearer !== undefined) authProvider.saveTokens({ access_token: bearer, token_type: 'Bearer' });
    return { authProvider };
  }
  if (bearer !== undefined) return { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } };
  return {};
}

/**
 * The step table shared by both SDK generations, whose `Client` methods have the same names.
 * `list(fetch, key)` resolves a list op to `{ result: { [key]: items }, pages }`, where
 * `fetch(params, options)` calls the SDK's list method for `key`.
 */
export function standardOps(client, list) {
  return {
    list_tools: () => list((params, options) => client.listTools(params, options), 'tools'),
    list_resources: () => list((params, options) => client.listResources(params, options), 'resources'),
    list_resource_templates: () =>
      list((params, options) => client.listResourceTemplates(params, options), 'resourceTemplates'),
    list_prompts: () => list((params, options) => client.listPrompts(params, options), 'prompts'),
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
}

/** Runs every step in order, one output line each; a failing step is reported, not fatal. */
export async function runPlan(plan, ops) {
  for (const step of plan) {
    const op = step?.op;
    try {
      const run = ops[op];
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
}
