// A real OpenID provider for the authorization tests: oidc-provider (OpenID-certified), on
// loopback, issuing JWT access tokens (RFC 9068) with the client-credentials grant for the
// resource a token request names (RFC 8707).
//
// Usage: node provider.mjs <port>
//
// The issuer is http://127.0.0.1:<port>. Clients (client_secret_basic or client_secret_post):
//   notes-reader / reader-secret  may ask for notes:read
//   notes-agent  / agent-secret   may ask for notes:read and notes:write
// Every resource is served, with the scopes notes:read and notes:write; a token's `aud` is the
// resource it was asked for. It prints {"issuer": ".."} on stdout once it listens, and exits
// when its standard input closes.

import Provider from 'oidc-provider';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: node provider.mjs <port>\n');
  process.exit(64);
}
const issuer = `http://127.0.0.1:${port}`;

const client = (id, secret, scope) => ({
  client_id: id,
  client_secret: secret,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope,
});

const provider = new Provider(issuer, {
  clients: [
    client('notes-reader', 'reader-secret', 'notes:read'),
    client('notes-agent', 'agent-secret', 'notes:read notes:write'),
  ],
  scopes: ['notes:read', 'notes:write'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A token request without `resource` gets no access token for an API.
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({
        scope: 'notes:read notes:write',
        audience: resource,
        accessTokenTTL: 10 * 60,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});

// Plain http on loopback is what these tests need; the provider warns about it otherwise.
provider.proxy = false;
const server = provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The test process holds our stdin: when it ends, so do we (no provider outlives its tests).
process.stdin.on('end', stop);
process.stdin.resume();
