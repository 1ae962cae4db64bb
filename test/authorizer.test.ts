/**
 * The Lambda authorizer (functions/authorizer.ts) for the team's other APIs: its handler with
 * dependencies built by the real wiring (public keys only) over a real table on both DynamoDB
 * servers, sessions started and ended through the use-cases, and a clock the test moves. Every
 * line it logs is captured: none may contain a token.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Before the Powertools logger loads: every level, so the allow lines are checked for tokens too.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});
import { readTokenConfig } from '../packages/server/src/config/token-config.js';
import { readMfaConfig } from '../packages/server/src/config/mfa-config.js';
import { confirmTotp, enrolTotp } from '../packages/server/src/features/mfa/manage-totp.js';
import { AuthorizerUnavailableError, lambdaAuthorizer } from '../packages/server/src/runtimes/lambda/lambda-authorizer.js';
import { stageWildcard } from '../packages/server/src/runtimes/lambda/authorizer-events.js';
import { StorageUnavailableError } from '../packages/server/src/storage/errors.js';
import { createKeyring, generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { createTokenService, type TokenService } from '../packages/server/src/features/tokens/token-service.js';
import type { AuthorizeAccessDependencies } from '../packages/server/src/features/sessions/authorize-access.js';
import { logout } from '../packages/server/src/features/sessions/end-sessions.js';
import { register } from '../packages/server/src/features/register/register.js';
import { SessionVerdictCache } from '../packages/server/src/features/sessions/session-verdict-cache.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { buildAuthorizerDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { httpApiAuthorizerEvent, METHOD_ARN, restRequestAuthorizerEvent, restTokenAuthorizerEvent } from './support/authorizer-events.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { lambdaContext } from './support/lambda-context.js';
import { movableClock } from './support/clock.js';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { login } from '../packages/server/src/features/login/login.js';
import { loginSession, secondFactorSession, mfaRequiredOf } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const STAGE_WILDCARD = 'arn:aws:execute-api:eu-west-1:123456789012:other123/prod/*';
const ACCESS_TOKEN_TTL_S = 900;

/** Everything the process writes while this file runs (Powertools writes JSON lines to stdout and stderr). */
const written: string[] = [];
/** Every token the tests handed the authorizer: none may reach a log line, nor any part of one. */
const tokensSeen = new Set<string>();
const bearer = (token: string) => (tokensSeen.add(token), `Bearer ${token}`);

beforeAll(() => {
  const capture = (chunk: string | Uint8Array) => (written.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk)), true);
  vi.spyOn(process.stdout, 'write').mockImplementation(capture as never);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture as never);
});

afterAll(() => {
  vi.restoreAllMocks();
});

const logLines = () =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe.each(dynamoDbServers)('the Lambda authorizer on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** An account with a live session, and an authorizer over the same table holding only the public keys. */
  async function signedIn(options: { cacheSeconds?: number; scopes?: string[]; requiredScope?: string; requireMfa?: boolean } = {}) {
    const clock = movableClock();
    // Tokens with scopes when asked (PASSLANE_TOKEN_SCOPES on the issuing functions).
    const scoped = options.scopes && { tokens: createTokenService({ keyring: await createKeyring(await generateSigningKey()), scopes: options.scopes }) };
    const fixture = await createAuthFixture(server.endpoint, { now: clock.now, ...scoped });
    const email = uniqueEmail();
    const registered = await register(fixture.deps, { email, password: PASSWORD });
    if (!('userId' in registered)) throw new Error('registration without verification answers the user id');
    const { userId } = registered;
    const signIn = () => loginSession(fixture.deps, { email, password: PASSWORD, sourceIp: '198.51.100.7', userAgent: 'vitest' });
    const tokens = fixture.deps.tokens as TokenService;
    const built = await buildAuthorizerDependencies({
      storage: { table: fixture.tableName, endpoint: server.endpoint },
      tokens: readTokenConfig({ PASSLANE_JWT_PUBLIC_KEYS: JSON.stringify(tokens.jwks()), PASSLANE_REQUIRED_SCOPE: options.requiredScope }),
      authorizer: { cacheSeconds: options.cacheSeconds ?? 5 },
      mfa: readMfaConfig({ PASSLANE_REQUIRE_MFA: options.requireMfa === true ? 'true' : undefined }),
    }, { dynamoDb: createDynamoDbClient });
    // Counts the authorizer's reads of sessions items.
    const reads = { count: 0 };
    const authorizerDeps: AuthorizeAccessDependencies = {
      ...built,
      sessions: { read: (accountKey) => (reads.count++, built.sessions.read(accountKey)) },
      now: clock.now,
    };
    const handler = lambdaAuthorizer(async () => authorizerDeps);
    const authorize = (event: unknown) => handler(event, lambdaContext());
    return { auth: fixture.deps, dispose: fixture.dispose, clock, email, userId, signIn, first: await signIn(), tokens, authorizerDeps, reads, authorize };
  }

  const sidOf = async (tokens: TokenService, accessToken: string) => (await tokens.verify(accessToken)).sessionId!;

  it('allows a live session\'s token: a simple response for an HTTP API, an Allow policy for REST TOKEN and REQUEST', async () => {
    const { first, userId, tokens, authorize, dispose } = await signedIn();
    const context = { sub: userId, sid: await sidOf(tokens, first.accessToken) };

    expect(await authorize(httpApiAuthorizerEvent(bearer(first.accessToken)))).toEqual({ isAuthorized: true, context });
    const policy = {
      principalId: userId,
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: STAGE_WILDCARD }] },
      context,
    };
    expect(await authorize(restTokenAuthorizerEvent(bearer(first.accessToken)))).toEqual(policy);
    expect(await authorize(restRequestAuthorizerEvent(bearer(first.accessToken)))).toEqual(policy);
    dispose();
  });

  it('with PASSLANE_REQUIRED_SCOPE, denies a live session\'s token without that scope, reading no session, and allows one with it', async () => {
    const denied = await signedIn({ requiredScope: 'orders:read' });
    expect(await denied.authorize(httpApiAuthorizerEvent(bearer(denied.first.accessToken)))).toEqual({ isAuthorized: false });
    await expect(denied.authorize(restTokenAuthorizerEvent(bearer(denied.first.accessToken)))).rejects.toThrow(/^Unauthorized$/);
    expect(denied.reads.count).toBe(0);
    expect(logLines().filter((line) => line.message === 'access denied').map((line) => line.reason)).toContain('insufficient_scope');
    denied.dispose();

    const allowed = await signedIn({ scopes: ['profile', 'orders:read'], requiredScope: 'orders:read' });
    expect(await allowed.authorize(httpApiAuthorizerEvent(bearer(allowed.first.accessToken)))).toMatchObject({ isAuthorized: true });
    allowed.dispose();
  });

  it('with PASSLANE_REQUIRE_MFA, denies a password-only token, reading no session, and allows one whose login used a second factor', async () => {
    const { auth, clock, email, first, authorize, reads, dispose } = await signedIn({ requireMfa: true });
    expect(await authorize(httpApiAuthorizerEvent(bearer(first.accessToken)))).toEqual({ isAuthorized: false });
    expect(reads.count).toBe(0);
    expect(logLines().filter((line) => line.message === 'access denied').map((line) => line.reason)).toContain('insufficient_user_authentication');

    // TOTP enrolled with that (recent) login, then a login finished with a code.
    const { otpauthUri } = await enrolTotp(auth, { accessToken: first.accessToken });
    const secret = base32Bytes(new URL(otpauthUri).searchParams.get('secret')!);
    const codeAt = (now: Date) => totpCode(secret, now.getTime());
    await confirmTotp(auth, { accessToken: first.accessToken, code: codeAt(clock.now()) });
    clock.advance(30);
    const challenge = await mfaRequiredOf(login(auth, { email, password: PASSWORD, sourceIp: '198.51.100.7' }));
    const withMfa = await secondFactorSession(auth, { mfaToken: challenge.mfaToken, method: 'totp', code: codeAt(clock.now()), sourceIp: '198.51.100.7' });
    expect(await authorize(httpApiAuthorizerEvent(bearer(withMfa.accessToken)))).toMatchObject({ isAuthorized: true });
    dispose();
  });

  it('denies the token of a session that ended (logout): a simple denial, REST\'s Unauthorized', async () => {
    const { auth, first, signIn, authorize, dispose } = await signedIn({ cacheSeconds: 0 });
    expect(await authorize(httpApiAuthorizerEvent(bearer(first.accessToken)))).toMatchObject({ isAuthorized: true });
    await logout(auth, { accessToken: first.accessToken });

    expect(await authorize(httpApiAuthorizerEvent(bearer(first.accessToken)))).toEqual({ isAuthorized: false });
    await expect(authorize(restTokenAuthorizerEvent(bearer(first.accessToken)))).rejects.toThrow(/^Unauthorized$/);
    await expect(authorize(restRequestAuthorizerEvent(bearer(first.accessToken)))).rejects.toThrow(/^Unauthorized$/);
    // The account's other sessions go on.
    const second = await signIn();
    expect(await authorize(httpApiAuthorizerEvent(bearer(second.accessToken)))).toMatchObject({ isAuthorized: true });
    expect(logLines().filter((line) => line.message === 'access denied').map((line) => line.reason)).toContain('session_ended');
    dispose();
  });

  it('denies expired, forged and session-less tokens without reading any session', async () => {
    const { first, userId, tokens, clock, reads, authorize, dispose } = await signedIn();
    const denied = { isAuthorized: false };
    // A token of the same issuer and audience signed with another key.
    const stranger = createTokenService({ keyring: await createKeyring(await generateSigningKey()) });
    const forged = (await stranger.issue({ userId, sessionId: await sidOf(tokens, first.accessToken) })).accessToken;
    const [header, payload, signature] = first.accessToken.split('.');
    const tampered = `${header}.${payload}.${signature!.slice(0, -4)}${signature!.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    // Issued by passlane's key, but for no session: it could not be revoked, so it is refused.
    const sessionless = (await tokens.issue({ userId })).accessToken;

    for (const token of [forged, tampered, sessionless, 'not.a.jwt']) {
      expect(await authorize(httpApiAuthorizerEvent(bearer(token)))).toEqual(denied);
      await expect(authorize(restTokenAuthorizerEvent(bearer(token)))).rejects.toThrow(/^Unauthorized$/);
    }
    clock.advance(ACCESS_TOKEN_TTL_S + 10); // past exp and the 5 s clock tolerance
    expect(await authorize(httpApiAuthorizerEvent(bearer(first.accessToken)))).toEqual(denied);
    expect(reads.count).toBe(0);
    const reasons = logLines().filter((line) => line.message === 'access denied').map((line) => line.reason);
    expect(reasons).toEqual(expect.arrayContaining(['invalid_token', 'no_session']));
    dispose();
  });

  it('holds a verdict for its TTL, then reads again: a logout reaches it within PASSLANE_AUTHORIZER_CACHE_S', async () => {
    const { auth, authorizerDeps, first, clock, reads, authorize, dispose } = await signedIn({ cacheSeconds: 5 });
    const event = () => httpApiAuthorizerEvent(bearer(first.accessToken));
    expect(await authorize(event())).toMatchObject({ isAuthorized: true });
    expect(reads.count).toBe(1);

    // Ended, but this container read it live 1 s ago: still allowed until the verdict is 5 s old.
    await logout(auth, { accessToken: first.accessToken });
    clock.advance(4);
    expect(await authorize(event())).toMatchObject({ isAuthorized: true });
    expect(reads.count).toBe(1);
    clock.advance(1);
    expect(await authorize(event())).toEqual({ isAuthorized: false });
    expect(reads.count).toBe(2);

    // The ended verdict is cached too: a token replayed in a burst costs one read per TTL.
    expect(await authorize(event())).toEqual({ isAuthorized: false });
    await expect(authorize(restRequestAuthorizerEvent(bearer(first.accessToken)))).rejects.toThrow(/^Unauthorized$/);
    expect(reads.count).toBe(2);
    clock.advance(5);
    expect(await authorize(event())).toEqual({ isAuthorized: false });
    expect(reads.count).toBe(3);
    expect(authorizerDeps.cache.size).toBe(1);
    dispose();
  });

  it('never keeps a verdict past the expiry of the token that caused the read', async () => {
    const { first, clock, reads, authorize, dispose } = await signedIn({ cacheSeconds: 60 });
    // 2 s before the token expires: the verdict is kept 2 s, not 60.
    clock.advance(ACCESS_TOKEN_TTL_S - 2);
    expect(await authorize(httpApiAuthorizerEvent(bearer(first.accessToken)))).toMatchObject({ isAuthorized: true });
    clock.advance(3); // expired, but within the verifier's 5 s clock tolerance
    expect(await authorize(httpApiAuthorizerEvent(bearer(first.accessToken)))).toMatchObject({ isAuthorized: true });
    expect(reads.count).toBe(2);
    dispose();
  });

  it('answers a malformed event with a clear denial, not a crash', async () => {
    const { first, reads, authorize, dispose } = await signedIn();
    const token = bearer(first.accessToken);
    for (const event of [undefined, null, 'GET /profile', {}, { type: 'COGNITO' }, { version: '2.0' }]) {
      expect(await authorize(event)).toEqual({ isAuthorized: false });
    }
    // An HTTP API event without headers, with another scheme, with a bare token.
    const { headers: _headers, ...headerless } = httpApiAuthorizerEvent(token);
    for (const event of [headerless, httpApiAuthorizerEvent('Basic dXNlcjpwYXNz'), httpApiAuthorizerEvent(first.accessToken), httpApiAuthorizerEvent('Bearer ')]) {
      expect(await authorize(event)).toEqual({ isAuthorized: false });
    }
    // REST: no token, no methodArn (nothing to allow), a header that is not a string.
    await expect(authorize(restTokenAuthorizerEvent(undefined))).rejects.toThrow(/^Unauthorized$/);
    const { methodArn: _arn, ...noArn } = restTokenAuthorizerEvent(token);
    await expect(authorize(noArn)).rejects.toThrow(/^Unauthorized$/);
    await expect(authorize({ ...restRequestAuthorizerEvent(undefined), headers: { Authorization: 42 } })).rejects.toThrow(/^Unauthorized$/);
    expect(reads.count).toBe(1); // only the event without methodArn got as far as the session
    expect(logLines().some((line) => line.message === 'access denied: not an API Gateway authorizer event')).toBe(true);
    dispose();
  });

  it('fails (500, never cached as a denial) when the sessions cannot be read', async () => {
    const { first, authorizerDeps, dispose } = await signedIn();
    const handler = lambdaAuthorizer(async () => ({
      ...authorizerDeps,
      sessions: { read: async () => Promise.reject(new StorageUnavailableError('readSessions', new Error('connect ECONNREFUSED'))) },
    }));
    await expect(handler(httpApiAuthorizerEvent(bearer(first.accessToken)), lambdaContext())).rejects.toBeInstanceOf(AuthorizerUnavailableError);
    const failure = logLines().find((line) => line.message === 'access check failed');
    expect(failure).toMatchObject({ level: 'ERROR', error: { name: 'StorageUnavailableError' } });
    dispose();
  });

  it('logged no token, nor any part of one', () => {
    const all = written.join('');
    expect(logLines().some((line) => line.message === 'access allowed')).toBe(true); // the capture works
    for (const token of tokensSeen) {
      expect(all).not.toContain(token);
      // The claims and the signature of a JWT each on their own, too.
      for (const part of token.split('.').slice(1).filter((segment) => segment.length >= 16)) expect(all).not.toContain(part);
    }
  });
});

describe('the verdict cache', () => {
  it('keeps a verdict until its TTL or the given deadline, whichever is sooner', () => {
    const cache = new SessionVerdictCache({ ttlSeconds: 5 });
    cache.set('a', { live: true, userId: 'u1' }, 0, 60_000);
    cache.set('b', { live: false }, 0, 2_000);
    expect(cache.get('a', 4_999)).toEqual({ live: true, userId: 'u1' });
    expect(cache.get('a', 5_000)).toBeUndefined();
    expect(cache.get('b', 1_999)).toEqual({ live: false });
    expect(cache.get('b', 2_000)).toBeUndefined();
    expect(cache.size).toBe(0); // stale entries go when met
  });

  it('keeps nothing with a TTL of 0, or past the deadline already', () => {
    const off = new SessionVerdictCache({ ttlSeconds: 0 });
    off.set('a', { live: false }, 0, 60_000);
    expect(off.size).toBe(0);
    const on = new SessionVerdictCache({ ttlSeconds: 5 });
    on.set('a', { live: false }, 10_000, 10_000);
    expect(on.size).toBe(0);
  });

  it('holds at most maxEntries, dropping the oldest', () => {
    const cache = new SessionVerdictCache({ ttlSeconds: 5, maxEntries: 3 });
    for (const id of ['a', 'b', 'c', 'd']) cache.set(id, { live: false }, 0, 60_000);
    expect(cache.size).toBe(3);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('d', 1)).toEqual({ live: false });
    // A rewritten entry is the newest again.
    cache.set('b', { live: true, userId: 'u' }, 1, 60_000);
    cache.set('e', { live: false }, 1, 60_000);
    expect(cache.get('c', 2)).toBeUndefined();
    expect(cache.get('b', 2)).toEqual({ live: true, userId: 'u' });
  });
});

describe('the REST policy resource', () => {
  it('covers every method and path of the stage the request came to', () => {
    expect(stageWildcard(METHOD_ARN)).toBe(STAGE_WILDCARD);
    expect(stageWildcard('arn:aws:execute-api:eu-west-1:123456789012:abc/$default/POST/a/b')).toBe('arn:aws:execute-api:eu-west-1:123456789012:abc/$default/*');
    expect(stageWildcard('not-an-arn')).toBe('not-an-arn');
  });
});
