/**
 * OAuth 2.0 client libraries nobody here wrote, against `npm start`'s server (startLocalServer)
 * with its defaults: no issuer configured, so the tokens' `iss` is the server's own URL (the
 * README's http://localhost:<port>, which the console and the mails' links use too), and the
 * clients are given nothing but that URL (and the one client's id). oauth4webapi discovers
 * through RFC 8414's document, openid-client through both (OIDC's by default), then each runs
 * the refresh grant: the new pair, and every refusal as the library's typed OAuth error with
 * RFC 6749 §5.2's code. The access token is verified as three kinds of resource server would:
 * jose with the discovered `jwks_uri`, fast-jwt with get-jwks starting from `iss`, and
 * oauth4webapi's RFC 9068 validator.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVerifier, type DecodedJwt } from 'fast-jwt';
import buildGetJwks from 'get-jwks';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalServer, type LocalServer } from '../packages/server/src/runtimes/node/local-server.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { SessionStore } from '../packages/server/src/storage/session-store.js';
import { parseRefreshToken } from '../packages/server/src/features/sessions/refresh-token.js';
import { failureOf } from './support/clock.js';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

const PASSWORD = 'correct horse battery staple';
const TABLE = `oauth-clients-${randomUUID()}`;
/** The one client passlane issues to (PASSLANE_OAUTH_CLIENT_ID's default). */
const CLIENT_ID = 'passlane';
const AUDIENCE = 'passlane-api';
/** `npm start` speaks plain HTTP on loopback: every library refuses that unless told. */
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let server: LocalServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'passlane-oauth-'));
  // `npm start` as it starts with nothing set: embedded dynalite, its own signing key, no issuer.
  server = await startLocalServer({ port: 0, dynamoDbPort: 0, dataDir, env: { PASSLANE_TABLE: TABLE } });
});

afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** A new account's first refresh token, from POST /login (the API's own camelCase answer). */
async function signIn(): Promise<string> {
  const email = `oauth-${randomUUID()}@example.test`;
  const post = (path: string) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  expect((await post('/register')).status).toBe(201);
  const login = await post('/login');
  expect(login.status).toBe(200);
  return ((await login.json()) as { refreshToken: string }).refreshToken;
}

/** A session whose idle end has passed, written through the store (no clock to wait for). */
async function expire(refreshToken: string): Promise<void> {
  const token = parseRefreshToken(refreshToken)!;
  const store = new SessionStore(createDynamoDbClient({ endpoint: server.dynamoDbEndpoint }), TABLE);
  const session = (await store.read(token.accountKey)).sessions.get(token.sessionId)!;
  const past = Math.floor(Date.now() / 1000) - 1;
  expect(await store.rotate(token.accountKey, { ...session, generation: session.generation + 1, idleExpiresAt: past }, session.generation)).toBe(true);
}

/** The claims every verifier below must agree on. */
function expectPasslaneClaims(claims: Record<string, unknown>): void {
  expect(claims).toMatchObject({ iss: server.url, aud: AUDIENCE, client_id: CLIENT_ID, sub: expect.any(String), sid: expect.any(String), jti: expect.any(String) });
  expect(claims).not.toHaveProperty('scope'); // none configured
}

it('issues tokens from the address the README gives (http://localhost:<port>), the URL a client is given', () => {
  expect(server.issuer).toBe(server.url);
  expect(server.url).toMatch(/^http:\/\/localhost:\d+$/);
  // The README's API, on this server's port: what every client below starts from.
  const readme = readFileSync(join(fileURLToPath(new URL('..', import.meta.url)), 'README.md'), 'utf8');
  expect(readme).toContain('API=http://localhost:3000');
  expect(server.url.replace(/:\d+$/, ':3000')).toBe('http://localhost:3000');
});

it('answers on both loopback addresses, whichever one `localhost` resolves to first', async () => {
  const port = new URL(server.url).port;
  for (const address of ['127.0.0.1', '[::1]']) {
    const discovery = await fetch(`http://${address}:${port}/.well-known/oauth-authorization-server`);
    expect(discovery.status, address).toBe(200);
    // The issuer stays the one origin, whichever address the request came in on.
    expect(((await discovery.json()) as { issuer: string }).issuer).toBe(server.url);
  }
});

describe('oauth4webapi', () => {
  let as: oauth.AuthorizationServer;
  const client: oauth.Client = { client_id: CLIENT_ID };
  const refresh = async (refreshToken: string) =>
    oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure));
  const grant = async (grantType: string, parameters: Record<string, string>) =>
    oauth.processGenericTokenEndpointResponse(as, client, await oauth.genericTokenEndpointRequest(as, client, oauth.None(), grantType, parameters, insecure));

  beforeAll(async () => {
    const issuer = new URL(server.url);
    // RFC 8414: /.well-known/oauth-authorization-server, its `issuer` checked against the URL.
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });

  it('discovers the token endpoint, the keys and no client authentication from the issuer alone', () => {
    expect(as).toEqual({
      issuer: server.url,
      token_endpoint: `${server.url}/token`,
      jwks_uri: `${server.url}/.well-known/jwks.json`,
      grant_types_supported: ['refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
    });
  });

  it('refreshes, and the access token passes RFC 9068 validation, jose and fast-jwt with get-jwks', async () => {
    const tokens = await refresh(await signIn());
    expect(tokens).toMatchObject({ token_type: 'bearer', access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 900 });

    // A resource server with oauth4webapi: RFC 9068 (typ at+jwt, iss, aud, exp, sub, iat, jti, client_id), keys from jwks_uri.
    const request = new Request('https://api.example.test/profile', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expectPasslaneClaims({ ...(await oauth.validateJwtAccessToken(as, request, AUDIENCE, insecure)) });

    // jose, with the JWKS discovery named.
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(as.jwks_uri!)), { issuer: as.issuer, audience: AUDIENCE, typ: 'at+jwt' });
    expect(protectedHeader.typ).toBe('at+jwt');
    expectPasslaneClaims(payload);

    // fast-jwt with get-jwks, starting from the token's `iss` alone (as a gateway trusting that issuer does).
    const getJwks = buildGetJwks({ issuersWhitelist: [server.url] });
    const verify = createVerifier({
      key: async ({ header, payload: claims }: DecodedJwt) => getJwks.getPublicKey({ kid: header.kid, alg: header.alg, domain: claims.iss }),
      allowedIss: server.url,
      allowedAud: AUDIENCE,
    });
    expectPasslaneClaims(await verify(tokens.access_token));
    // And by OIDC discovery from `iss`, as get-jwks' providerDiscovery does.
    const discovering = buildGetJwks({ providerDiscovery: true, issuersWhitelist: [server.url] });
    const { kid, alg } = JSON.parse(Buffer.from(tokens.access_token.split('.')[0]!, 'base64url').toString()) as { kid: string; alg: string };
    expect(await discovering.getPublicKey({ kid, alg, domain: String(decodeJwt(tokens.access_token).iss) })).toBe(await getJwks.getPublicKey({ kid, alg, domain: server.url }));
  });

  it('answers every refusal as a ResponseBodyError with RFC 6749 §5.2 code', async () => {
    const refusal = async (promise: Promise<unknown>) => {
      const error = await failureOf(promise);
      expect(error).toBeInstanceOf(oauth.ResponseBodyError);
      const { status, error: code, error_description: description } = error as oauth.ResponseBodyError;
      return { status, code, description };
    };
    const invalidGrant = { status: 400, code: 'invalid_grant', description: expect.any(String) };

    // Unknown: well-formed (or not) but never issued.
    expect(await refusal(refresh('not-a-refresh-token'))).toEqual(invalidGrant);
    const live = await signIn();
    const [accountKey, sessionId] = live.split('.');
    expect(await refusal(refresh(`${accountKey}.${sessionId}.${'A'.repeat(43)}`))).toEqual(invalidGrant);

    // Expired: the session's idle end has passed.
    const stale = await signIn();
    await expire(stale);
    expect(await refusal(refresh(stale))).toEqual(invalidGrant);

    // Reused: a token spent two rotations ago is reuse whatever the grace window; the session ends.
    const first = await signIn();
    const second = (await refresh(first)).refresh_token!;
    const third = (await refresh(second)).refresh_token!;
    expect(await refusal(refresh(first))).toEqual({ ...invalidGrant, description: expect.stringMatching(/already used/) });
    expect(await refusal(refresh(third))).toEqual(invalidGrant); // its session ended with the reuse

    // Another grant type, and a refresh grant without its token.
    expect(await refusal(grant('password', { username: 'ada@example.test', password: PASSWORD }))).toEqual({
      status: 400,
      code: 'unsupported_grant_type',
      description: 'grant_type must be refresh_token',
    });
    expect(await refusal(grant('refresh_token', {}))).toEqual({ status: 400, code: 'invalid_request', description: 'refresh_token must be a non-empty string' });
  });
});

describe('openid-client', () => {
  const options = { execute: [openid.allowInsecureRequests] };

  it('discovers through the OpenID document (its default) and through RFC 8414\'s, and refreshes', async () => {
    for (const algorithm of ['oidc', 'oauth2'] as const) {
      // The issuer and the client's id, nothing else: no secret, so no client authentication.
      const config = await openid.discovery(new URL(server.url), CLIENT_ID, undefined, undefined, { ...options, algorithm });
      expect(config.serverMetadata()).toMatchObject({ issuer: server.url, token_endpoint: `${server.url}/token`, jwks_uri: `${server.url}/.well-known/jwks.json` });
      const tokens = await openid.refreshTokenGrant(config, await signIn());
      expect(tokens).toMatchObject({ token_type: 'bearer', access_token: expect.any(String), refresh_token: expect.any(String) });
      expectPasslaneClaims(decodeJwt(tokens.access_token));
    }
  });

  it('answers every refusal as a ResponseBodyError with RFC 6749 §5.2 code', async () => {
    const config = await openid.discovery(new URL(server.url), CLIENT_ID, undefined, undefined, options);
    const codeOf = async (promise: Promise<unknown>) => {
      const error = await failureOf(promise);
      expect(error).toBeInstanceOf(openid.ResponseBodyError);
      return [(error as openid.ResponseBodyError).status, (error as openid.ResponseBodyError).error];
    };

    expect(await codeOf(openid.refreshTokenGrant(config, 'not-a-refresh-token'))).toEqual([400, 'invalid_grant']);
    const stale = await signIn();
    await expire(stale);
    expect(await codeOf(openid.refreshTokenGrant(config, stale))).toEqual([400, 'invalid_grant']);
    const first = await signIn();
    const second = (await openid.refreshTokenGrant(config, first)).refresh_token!;
    await openid.refreshTokenGrant(config, second);
    expect(await codeOf(openid.refreshTokenGrant(config, first))).toEqual([400, 'invalid_grant']);
    expect(await codeOf(openid.genericGrantRequest(config, 'client_credentials', {}))).toEqual([400, 'unsupported_grant_type']);
    expect(await codeOf(openid.genericGrantRequest(config, 'refresh_token', {}))).toEqual([400, 'invalid_request']);
  });
});
