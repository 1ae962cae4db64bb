/**
 * Sessions (issue: rotating refresh tokens with reuse detection, sign-out, revocation verifiers
 * can see), through the use-cases against both real DynamoDB servers, with a clock the test moves.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicSessionId, parsePublicSessionId, parseRefreshToken } from '../packages/server/src/features/sessions/refresh-token.js';
import { sessionsKey } from '../packages/server/src/storage/session-store.js';
import { authenticateSession } from '../packages/server/src/features/sessions/authenticate-session.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { deleteSession, logout } from '../packages/server/src/features/sessions/end-sessions.js';
import {
  InvalidGrantError,
  InvalidRequestError,
  RateLimitedError,
  RefreshTokenReusedError,
  SessionNotFoundError,
  UnauthenticatedError,
  UnsupportedGrantTypeError,
} from '../packages/server/src/accounts/errors.js';
import { listSessions } from '../packages/server/src/features/sessions/list-sessions.js';
import { refreshSession, SPENT_KEPT, type RefreshResponse } from '../packages/server/src/features/sessions/refresh-session.js';
import { register } from '../packages/server/src/features/register/register.js';
import { TokenRequest } from '../packages/server/src/features/sessions/session-schemas.js';
import { parseBody } from '../packages/server/src/api/request-body.js';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { decodeJwt } from 'jose';
import { changePasswordWithToken, countingHasher, createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { movableClock, failureOf } from './support/clock.js';
import { loginSession, type LoginSession } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'another long passphrase';
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const refresh = (deps: AppDependencies, token: string, sourceIp = '198.51.100.7') =>
  refreshSession(deps, { refreshToken: token, sourceIp });

describe.each(dynamoDbServers)('sessions on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function signedIn(overrides: Partial<AppDependencies> = {}) {
    const clock = movableClock();
    const fixture = await createAuthFixture(server.endpoint, { now: clock.now, ...overrides });
    const email = uniqueEmail();
    await register(fixture.deps, { email, password: PASSWORD });
    const signIn = (userAgent = CHROME, sourceIp = '198.51.100.7') => loginSession(fixture.deps, { email, password: PASSWORD, sourceIp, userAgent });
    return { ...fixture, clock, email, signIn, first: await signIn() };
  }

  it('login returns a refresh token and an access token that names its session', async () => {
    const { deps, first, dispose } = await signedIn();
    expect(first.refreshToken).toMatch(/^[0-9a-f]{16}\.[\w-]{22}\.[\w-]{43}$/);
    expect(first.refreshExpiresIn).toBe(deps.sessionConfig.idleSeconds);
    const verified = await deps.tokens.verify(first.accessToken);
    const token = parseRefreshToken(first.refreshToken)!;
    expect(verified.sessionId).toBe(publicSessionId(token.accountKey, token.sessionId));
    dispose();
  });

  it('rotates once per token: the new pair works, the spent token does not', async () => {
    const { deps, first, clock, dispose } = await signedIn();
    clock.advance(60);
    const second = await refresh(deps, first.refreshToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    // Issued at the moved clock: read, not verified against the real one.
    expect(decodeJwt(second.accessToken).sid).toBe(decodeJwt(first.accessToken).sid);
    clock.advance(60);
    const third = await refresh(deps, second.refreshToken);
    expect(third.refreshToken).not.toBe(second.refreshToken);
    dispose();
  });

  it('stores only hashes of refresh secrets', async () => {
    const { deps, first, client, tableName, dispose } = await signedIn();
    const token = parseRefreshToken(first.refreshToken)!;
    const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: sessionsKey(token.accountKey) } }, ConsistentRead: true }));
    const stored = JSON.stringify(Item);
    const secret = first.refreshToken.split('.')[2]!;
    expect(stored).not.toContain(secret);
    expect(stored).toContain(token.sessionId);
    // SHA-256, base64url: what every stored session already holds (any other digest would end them all).
    expect(stored).toContain(createHash('sha256').update(token.secret).digest('base64url'));
    await refresh(deps, first.refreshToken);
    dispose();
  });

  it('20 concurrent refreshes with one token: every one gets the same new pair, one live chain', async () => {
    const { deps, first, events, dispose } = await signedIn();
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(deps, first.refreshToken)));
    const tokens = new Set(answers.map((answer) => answer.refreshToken));
    expect(tokens.size).toBe(1);
    const [live] = tokens;
    // The chain goes on from that one token; the spent one, after the grace window, is reuse.
    const next = await refresh(deps, live!);
    expect(next.refreshToken).not.toBe(live);
    expect(events.filter((event) => event.type === 'auth.refresh_token_reused')).toEqual([]);
    dispose();
  });

  it('inside the grace window a spent token gets the same new pair; after it, reuse ends the session', async () => {
    const { deps, first, clock, events, dispose } = await signedIn();
    const second = await refresh(deps, first.refreshToken);
    clock.advance(deps.sessionConfig.graceSeconds);
    const again = await refresh(deps, first.refreshToken);
    expect(again.refreshToken).toBe(second.refreshToken);
    clock.advance(1);
    expect(await failureOf(refresh(deps, first.refreshToken))).toBeInstanceOf(RefreshTokenReusedError);
    expect(events.some((event) => event.type === 'auth.refresh_token_reused')).toBe(true);
    // Every token of the session is dead now, the live one and its access token's session too.
    expect(await failureOf(refresh(deps, second.refreshToken))).toBeInstanceOf(InvalidGrantError);
    expect(await failureOf(authenticateSession(deps, second.accessToken, clock.now()))).toBeInstanceOf(UnauthenticatedError);
    dispose();
  });

  it('recognises a token spent several rotations ago as reuse', async () => {
    const { deps, first, clock, dispose } = await signedIn();
    let current: LoginSession | RefreshResponse = first;
    for (let i = 0; i < Math.min(4, SPENT_KEPT); i++) {
      clock.advance(60);
      current = await refresh(deps, current.refreshToken);
    }
    expect(await failureOf(refresh(deps, first.refreshToken))).toBeInstanceOf(RefreshTokenReusedError);
    dispose();
  });

  it('refuses malformed, unknown and foreign tokens without ending anything', async () => {
    const { deps, first, dispose } = await signedIn();
    const token = parseRefreshToken(first.refreshToken)!;
    expect(await failureOf(refresh(deps, 'not-a-token'))).toBeInstanceOf(InvalidGrantError);
    const guessed = `${token.accountKey}.${token.sessionId}.${'A'.repeat(43)}`;
    expect(await failureOf(refresh(deps, guessed))).toBeInstanceOf(InvalidGrantError);
    // The grant's own checks are POST /token's schema's (session-schemas.ts), made before the use case runs.
    expect(() => parseBody(TokenRequest, { grant_type: 'password', refresh_token: first.refreshToken })).toThrow(UnsupportedGrantTypeError);
    expect(() => parseBody(TokenRequest, { grant_type: 'refresh_token' })).toThrow(InvalidRequestError);
    // A guess with the right session id does not end the session.
    await refresh(deps, first.refreshToken);
    dispose();
  });

  it('refuses an expired session that TTL has not deleted yet', async () => {
    const { deps, first, clock, dispose } = await signedIn();
    clock.advance(deps.sessionConfig.idleSeconds + 1);
    expect(await failureOf(refresh(deps, first.refreshToken))).toBeInstanceOf(InvalidGrantError);
    expect(await failureOf(authenticateSession(deps, first.accessToken, clock.now()))).toBeInstanceOf(UnauthenticatedError);
    dispose();
  });

  it('ends a session at its absolute lifetime however often it is refreshed', async () => {
    const { deps, first, clock, dispose } = await signedIn({ sessionConfig: { ...(await defaults()), idleSeconds: 3600, maxAgeSeconds: 3 * 3600 } });
    let current: { refreshToken: string; refreshExpiresIn: number } = first;
    for (let hour = 0; hour < 2; hour++) {
      clock.advance(3000);
      current = await refresh(deps, current.refreshToken);
    }
    // 6000 s in: the idle timeout (3600 s) would reach past the absolute end (10800 s)? Not yet.
    expect(current.refreshExpiresIn).toBe(3600);
    clock.advance(3000);
    current = await refresh(deps, current.refreshToken);
    expect(current.refreshExpiresIn).toBe(3 * 3600 - 9000);
    clock.advance(1801);
    expect(await failureOf(refresh(deps, current.refreshToken))).toBeInstanceOf(InvalidGrantError);
    dispose();
  });

  it('limits refreshes per session', async () => {
    const { deps, first, dispose } = await signedIn({ sessionConfig: { ...(await defaults()), refreshesPerSessionPerHour: 3, graceSeconds: 0 } });
    let current: { refreshToken: string } = first;
    for (let i = 0; i < 3; i++) current = await refresh(deps, current.refreshToken);
    const limited = await failureOf(refresh(deps, current.refreshToken));
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterSeconds).toBeGreaterThan(0);
    dispose();
  });

  it('limits failed refreshes per source, never a valid token from that source (a NAT)', async () => {
    const { deps, first, dispose } = await signedIn({ sessionConfig: { ...(await defaults()), refreshFailuresPerSource: 2 } });
    for (let i = 0; i < 2; i++) expect(await failureOf(refresh(deps, 'garbage', '203.0.113.5'))).toBeInstanceOf(InvalidGrantError);
    // Past the limit, every further failure from that source is 429 ...
    expect(await failureOf(refresh(deps, 'garbage', '203.0.113.5'))).toBeInstanceOf(RateLimitedError);
    const stale = `${first.refreshToken.slice(0, -4)}AAAA`;
    expect(await failureOf(refresh(deps, stale, '203.0.113.5'))).toBeInstanceOf(RateLimitedError);
    // ... but a user behind the same address with a valid token is not held back by them.
    const next = await refresh(deps, first.refreshToken, '203.0.113.5');
    // Another source is not held back either.
    expect(await failureOf(refresh(deps, 'garbage', '203.0.113.6'))).toBeInstanceOf(InvalidGrantError);
    await refresh(deps, next.refreshToken, '203.0.113.6');
    dispose();
  });

  it('lists live sessions without tokens, and ends one by id', async () => {
    const { deps, first, signIn, clock, dispose } = await signedIn();
    clock.advance(5);
    const phone = await signIn('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1', '2001:db8:1:2::9');
    const { sessions } = await listSessions(deps, { accessToken: first.accessToken });
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).toMatchObject({ client: 'Safari', network: '2001:db8:1::/48', current: false });
    expect(sessions[1]).toMatchObject({ client: 'Chrome', network: '198.51.100.0/24', current: true });
    expect(JSON.stringify(sessions)).not.toContain(phone.refreshToken.split('.')[2]);

    await deleteSession(deps, { accessToken: first.accessToken, id: sessions[0]!.id });
    expect(await failureOf(refresh(deps, phone.refreshToken))).toBeInstanceOf(InvalidGrantError);
    expect(await failureOf(deleteSession(deps, { accessToken: first.accessToken, id: sessions[0]!.id }))).toBeInstanceOf(SessionNotFoundError);
    expect(await failureOf(deleteSession(deps, { accessToken: first.accessToken, id: 'nope' }))).toBeInstanceOf(SessionNotFoundError);
    expect((await listSessions(deps, { accessToken: first.accessToken })).sessions).toHaveLength(1);
    dispose();
  });

  it('never ends or lists another account’s sessions', async () => {
    const a = await signedIn();
    const other = uniqueEmail();
    await register(a.deps, { email: other, password: PASSWORD });
    const b = await loginSession(a.deps, { email: other, password: PASSWORD });
    const bId = (await a.deps.tokens.verify(b.accessToken)).sessionId!;
    expect(await failureOf(deleteSession(a.deps, { accessToken: a.first.accessToken, id: bId }))).toBeInstanceOf(SessionNotFoundError);
    expect((await listSessions(a.deps, { accessToken: b.accessToken })).sessions.map((s) => s.id)).toEqual([bId]);
    await refresh(a.deps, b.refreshToken);
    a.dispose();
  });

  it('logs out this session, the others, or all', async () => {
    const { deps, first, signIn, dispose } = await signedIn();
    const second = await signIn();
    const third = await signIn();
    await logout(deps, { accessToken: third.accessToken });
    expect(await failureOf(refresh(deps, third.refreshToken))).toBeInstanceOf(InvalidGrantError);
    expect(await failureOf(logout(deps, { accessToken: third.accessToken }))).toBeInstanceOf(UnauthenticatedError);

    await logout(deps, { accessToken: first.accessToken, scope: 'others' });
    expect(await failureOf(refresh(deps, second.refreshToken))).toBeInstanceOf(InvalidGrantError);
    const kept = await refresh(deps, first.refreshToken);

    const fourth = await signIn();
    await logout(deps, { accessToken: kept.accessToken, scope: 'global' });
    expect(await failureOf(refresh(deps, kept.refreshToken))).toBeInstanceOf(InvalidGrantError);
    expect(await failureOf(refresh(deps, fourth.refreshToken))).toBeInstanceOf(InvalidGrantError);
    expect(await failureOf(logout(deps, { accessToken: fourth.accessToken, scope: 'everything' }))).toBeInstanceOf(InvalidRequestError);
    dispose();
  });

  it('a password change ends every other session; the one that changed it goes on', async () => {
    const { deps, first, signIn, dispose } = await signedIn();
    const other = await signIn();
    await changePasswordWithToken(deps, { accessToken: first.accessToken, currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(await failureOf(refresh(deps, other.refreshToken))).toBeInstanceOf(InvalidGrantError);
    expect(await failureOf(authenticateSession(deps, other.accessToken))).toBeInstanceOf(UnauthenticatedError);
    await refresh(deps, first.refreshToken);
    dispose();
  });

  it('a password change needs the token of a live session: after a global logout, a held token and the password change nothing', async () => {
    const counting = countingHasher();
    const { deps, first, signIn, users, email, dispose } = await signedIn({ hasher: counting.hasher });
    const held = await signIn(); // what an attacker kept of another session
    await logout(deps, { accessToken: first.accessToken, scope: 'global' });
    const storedBefore = (await users.getUserByEmail(email))!.passwordHash;
    const hashesBefore = { ...counting.calls };
    for (const accessToken of [held.accessToken, first.accessToken]) {
      const refused = await failureOf(changePasswordWithToken(deps, { accessToken, currentPassword: PASSWORD, newPassword: NEW_PASSWORD }));
      expect(refused).toBeInstanceOf(UnauthenticatedError);
      expect((refused as Error).message).toBe('the session has ended');
    }
    // Refused before the account's budget or any hash is spent on it, and the password stands.
    expect(counting.calls).toEqual(hashesBefore);
    expect((await users.getUserByEmail(email))!.passwordHash).toBe(storedBefore);
    await signIn();
    dispose();
  });

  it('keeps at most the configured number of sessions per account, ending the oldest', async () => {
    const { deps, first, signIn, clock, events, dispose } = await signedIn({ sessionConfig: { ...(await defaults()), perAccount: 3 } });
    const later: LoginSession[] = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(1);
      later.push(await signIn());
    }
    expect(await failureOf(refresh(deps, first.refreshToken))).toBeInstanceOf(InvalidGrantError);
    const { sessions } = await listSessions(deps, { accessToken: later[2]!.accessToken });
    expect(sessions).toHaveLength(3);
    expect(events.some((event) => event.type === 'auth.sessions_ended' && event.reason === 'evicted')).toBe(true);
    dispose();
  });

  it('a login decided before a password change cannot leave a session after it', async () => {
    const { deps, first, signIn, dispose } = await signedIn();
    const accountKey = parseRefreshToken(first.refreshToken)!.accountKey;
    const userId = decodeJwt(first.accessToken).sub!;
    // A login read the sessions, then the password changed (and purged), then the login writes.
    const staleRead = await deps.sessions.read(accountKey);
    const purgeRead = await deps.sessions.read(accountKey);
    // Another login lands between the purge's read and its write: the purge removes it too.
    const between = await signIn();
    await deps.sessions.purge(purgeRead, []);
    expect(await failureOf(refresh(deps, between.refreshToken))).toBeInstanceOf(InvalidGrantError);
    const { startSession } = await import('../packages/server/src/features/sessions/start-session.js');
    const { SessionsChangedError } = await import('../packages/server/src/storage/session-store.js');
    expect(await failureOf(startSession(deps, { userId, accountKey, read: staleRead, now: new Date() }))).toBeInstanceOf(SessionsChangedError);
    expect((await deps.sessions.read(accountKey)).sessions.size).toBe(0);
    dispose();
  });

  it('a password change racing a refresh of its own session keeps that refresh', async () => {
    const { deps, first, dispose } = await signedIn();
    const accountKey = parseRefreshToken(first.refreshToken)!.accountKey;
    const read = await deps.sessions.read(accountKey);
    const refreshed = await refresh(deps, first.refreshToken);
    const own = parseRefreshToken(first.refreshToken)!.sessionId;
    const { SessionsChangedError } = await import('../packages/server/src/storage/session-store.js');
    expect(await failureOf(deps.sessions.purge(read, [own]))).toBeInstanceOf(SessionsChangedError);
    await refresh(deps, refreshed.refreshToken);
    dispose();
  });

  it('concurrent logins of one account each get a session', async () => {
    const { deps, email, dispose } = await signedIn({ sessionConfig: { ...(await defaults()), perAccount: 20 } });
    const answers = await Promise.all(Array.from({ length: 8 }, () => loginSession(deps, { email, password: PASSWORD })));
    const ids = await Promise.all(answers.map(async (answer) => (await deps.tokens.verify(answer.accessToken)).sessionId));
    expect(new Set(ids).size).toBe(8);
    for (const answer of answers) await refresh(deps, answer.refreshToken);
    dispose();
  });

  it('parses public session ids strictly', () => {
    expect(parsePublicSessionId('0123456789abcdef.AAAAAAAAAAAAAAAAAAAAAA')).toEqual({ accountKey: '0123456789abcdef', sessionId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(parsePublicSessionId('0123456789abcdef.AAAA')).toBeUndefined();
    expect(parsePublicSessionId(undefined)).toBeUndefined();
  });
});

async function defaults() {
  const { DEFAULT_SESSION_CONFIG } = await import('../packages/server/src/features/sessions/settings.js');
  return { ...DEFAULT_SESSION_CONFIG };
}
