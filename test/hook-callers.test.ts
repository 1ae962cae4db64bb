/**
 * The hooks where passlane asks them (issue 37): the token hook at every login and refresh, the
 * sign-up hook before registration, a first federated sign-in and lazy migration. Through the use
 * cases, against a real DynamoDB (dynalite) and a real HTTP receiver that verifies each request
 * with the `standardwebhooks` package; the clock is one the test moves.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignupHookUnavailableError, SignupRefusedError, TokenHookUnavailableError } from '../packages/server/src/accounts/errors.js';
import { DEFAULT_RECOVERY_CONFIG } from '../packages/server/src/features/recovery/settings.js';
import { resolveIdentity } from '../packages/server/src/features/federation/resolve-identity.js';
import { createMigratedAccount } from '../packages/server/src/features/migration/migrate-account.js';
import { register } from '../packages/server/src/features/register/register.js';
import { refreshSession } from '../packages/server/src/features/sessions/refresh-session.js';
import { createHttpsHook } from '../packages/server/src/hooks/https-hook.js';
import type { TokenHookFailurePolicy } from '../packages/server/src/hooks/settings.js';
import { createSignupHook } from '../packages/server/src/hooks/signup-hook.js';
import { createTokenHook } from '../packages/server/src/hooks/token-hook.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { failureOf, movableClock } from './support/clock.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { newWebhookSecret, startHookReceiver, type HookReceiver } from './support/hook-receiver.js';
import { loginSession } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const realClock = () => new Date();

let dynamo: RunningDynamoDb;
let receiver: HookReceiver;
const secret = newWebhookSecret();

beforeAll(async () => {
  [dynamo, receiver] = await Promise.all([startDynalite(), startHookReceiver(secret)]);
});
afterAll(async () => {
  await receiver?.stop();
  await dynamo?.stop();
});

const httpsHook = (timeoutMs = 1_000) => createHttpsHook({ url: receiver.url, secrets: [secret], timeoutMs });
const tokenHook = (onFailure: TokenHookFailurePolicy = 'refuse') => createTokenHook(httpsHook(), { onFailure, clientId: 'passlane', now: realClock });
const signupHook = () => createSignupHook(httpsHook(), { now: realClock });

async function fixture(overrides: Partial<AppDependencies> = {}) {
  const clock = movableClock();
  const built = await createAuthFixture(dynamo.endpoint, { now: clock.now, ...overrides });
  return { ...built, clock };
}

async function account(deps: AppDependencies) {
  const email = uniqueEmail();
  // Registered before any sign-up hook in these tests is asked.
  await register({ ...deps, signupHook: undefined }, { email, password: PASSWORD });
  return email;
}

const claimsOf = (accessToken: string) => decodeJwt(accessToken);

describe('the token hook', () => {
  it('puts its claims in the access token at login, and is asked again at every refresh', async () => {
    const { deps, clock, dispose } = await fixture({ tokenHook: tokenHook() });
    const email = await account(deps);
    let roles = ['admin', 'billing'];
    receiver.reply = (event) => ({ body: { claims: { tenant: 't-1', roles, asked: event.data.trigger } } });

    const login = await loginSession(deps, { email, password: PASSWORD, sourceIp: '198.51.100.7' });
    expect(claimsOf(login.accessToken)).toMatchObject({ tenant: 't-1', roles: ['admin', 'billing'], asked: 'login', amr: ['pwd'] });
    const asked = receiver.received.at(-1)!.event!;
    expect(asked).toMatchObject({ type: 'token.claims_requested', data: { email, amr: ['pwd'], client_id: 'passlane', trigger: 'login' } });
    expect(asked.data.accountId).toBe(claimsOf(login.accessToken).sub);

    // A role taken away is gone at the next refresh.
    roles = ['billing'];
    clock.advance(60);
    const refreshed = await refreshSession(deps, { refreshToken: login.refreshToken, sourceIp: '198.51.100.7' });
    expect(claimsOf(refreshed.accessToken)).toMatchObject({ tenant: 't-1', roles: ['billing'], asked: 'refresh' });
    // The session kept the address for the refresh's question (only because a hook is set).
    expect(receiver.received.at(-1)!.event!.data).toMatchObject({ email, trigger: 'refresh', accountId: asked.data.accountId });
    dispose();
  });

  it('cannot override what passlane sets: a reserved claim fails the hook, and refuses the login by default', async () => {
    const { deps, events, dispose } = await fixture({ tokenHook: tokenHook() });
    const email = await account(deps);
    receiver.reply = () => ({ body: { claims: { sub: 'someone-else', tenant: 't-1' } } });
    const error = await failureOf(loginSession(deps, { email, password: PASSWORD, sourceIp: '198.51.100.7' }));
    expect(error).toBeInstanceOf(TokenHookUnavailableError);
    expect(error).toMatchObject({ code: 'token_hook_unavailable', retryAfterSeconds: 5 });
    expect(events).toContainEqual(expect.objectContaining({ type: 'auth.token_hook_failed', trigger: 'login', reason: 'reserved_claim', outcome: 'refused' }));
    // Asked before the session: a refused login leaves none behind.
    const sessions = await deps.sessions.read(deps.fingerprint(email));
    expect(sessions.sessions.size).toBe(0);
    dispose();
  });

  it('with without_claims, a failed hook gives the token without its claims (audited)', async () => {
    const { deps, events, dispose } = await fixture({ tokenHook: tokenHook('without_claims') });
    const email = await account(deps);
    receiver.reply = () => ({ body: { claims: { sub: 'someone-else', tenant: 't-1' } } });
    const login = await loginSession(deps, { email, password: PASSWORD, sourceIp: '198.51.100.7' });
    const claims = claimsOf(login.accessToken);
    expect(claims.tenant).toBeUndefined();
    expect(claims.sub).not.toBe('someone-else');
    expect(events).toContainEqual(expect.objectContaining({ type: 'auth.token_hook_failed', reason: 'reserved_claim', outcome: 'without_claims' }));

    receiver.reply = () => ({ status: 500 });
    const refreshed = await refreshSession(deps, { refreshToken: login.refreshToken, sourceIp: '198.51.100.7' });
    expect(claimsOf(refreshed.accessToken).tenant).toBeUndefined();
    expect(events).toContainEqual(expect.objectContaining({ type: 'auth.token_hook_failed', trigger: 'refresh', reason: 'status', status: 500, outcome: 'without_claims' }));
    dispose();
  });

  it('a refused refresh does not spend the refresh token: it works once the hook is back, long after the grace window', async () => {
    const { deps, clock, dispose } = await fixture({ tokenHook: tokenHook() });
    const email = await account(deps);
    receiver.reply = () => ({ body: { claims: { tenant: 't-1' } } });
    const login = await loginSession(deps, { email, password: PASSWORD, sourceIp: '198.51.100.7' });

    receiver.reply = () => ({ delayMs: 1_500, body: { claims: {} } });
    expect(await failureOf(refreshSession(deps, { refreshToken: login.refreshToken, sourceIp: '198.51.100.7' }))).toBeInstanceOf(TokenHookUnavailableError);
    clock.advance(deps.sessionConfig.graceSeconds + 60);
    receiver.reply = () => ({ body: { claims: { tenant: 't-2' } } });
    const refreshed = await refreshSession(deps, { refreshToken: login.refreshToken, sourceIp: '198.51.100.7' });
    expect(claimsOf(refreshed.accessToken).tenant).toBe('t-2');
    dispose();
  });

  it('off: nothing is asked and the session keeps no address', async () => {
    const { deps, dispose } = await fixture();
    const email = await account(deps);
    const before = receiver.received.length;
    const login = await loginSession(deps, { email, password: PASSWORD, sourceIp: '198.51.100.7' });
    await refreshSession(deps, { refreshToken: login.refreshToken, sourceIp: '198.51.100.7' });
    expect(receiver.received.length).toBe(before);
    const [session] = (await deps.sessions.read(deps.fingerprint(email))).sessions.values();
    expect(session!.email).toBeUndefined();
    dispose();
  });
});

describe('the sign-up hook', () => {
  const onlyExampleDotCom = () => {
    receiver.reply = (event) => ({ body: String(event.data.email).endsWith('@example.com') ? { allow: true } : { allow: false, code: 'domain_not_allowed' } });
  };

  it('refuses a registration with its code, and creates nothing', async () => {
    const { deps, users, dispose } = await fixture({ signupHook: signupHook() });
    onlyExampleDotCom();
    const email = `user-${crypto.randomUUID()}@elsewhere.test`;
    const error = await failureOf(register(deps, { email, password: PASSWORD }));
    expect(error).toBeInstanceOf(SignupRefusedError);
    expect(error).toMatchObject({ code: 'signup_refused', reason: 'domain_not_allowed' });
    expect(receiver.received.at(-1)!.event).toMatchObject({ type: 'signup.requested', data: { email, method: 'password' } });
    expect(await users.getUserByEmail(email)).toBeUndefined();
    // An allowed address registers as before.
    expect(await register(deps, { email: uniqueEmail(), password: PASSWORD })).toMatchObject({ userId: expect.any(String) });
    dispose();
  });

  it('answers a taken address as it answers a free one: the hook is asked before the address is looked at', async () => {
    const { deps, dispose } = await fixture({ signupHook: signupHook(), recovery: { ...DEFAULT_RECOVERY_CONFIG, emailVerification: true } });
    const taken = `user-${crypto.randomUUID()}@elsewhere.test`;
    await register({ ...deps, signupHook: undefined }, { email: taken, password: PASSWORD });
    onlyExampleDotCom();
    const free = `user-${crypto.randomUUID()}@elsewhere.test`;
    const [onTaken, onFree] = await Promise.all([failureOf(register(deps, { email: taken, password: PASSWORD })), failureOf(register(deps, { email: free, password: PASSWORD }))]);
    expect(onTaken).toEqual(onFree);
    expect(onTaken).toBeInstanceOf(SignupRefusedError);
    dispose();
  });

  it('without a usable answer, creates no account: 503 signup_hook_unavailable', async () => {
    const { deps, users, events, dispose } = await fixture({ signupHook: signupHook() });
    receiver.reply = () => ({ body: { allow: 'maybe' } });
    const email = uniqueEmail();
    expect(await failureOf(register(deps, { email, password: PASSWORD }))).toBeInstanceOf(SignupHookUnavailableError);
    expect(await users.getUserByEmail(email)).toBeUndefined();
    expect(events).toContainEqual(expect.objectContaining({ type: 'auth.signup_hook_failed', method: 'password', reason: 'malformed_answer' }));
    expect(JSON.stringify(events)).not.toContain(email);
    dispose();
  });

  it('is asked before lazy migration creates the account the old system vouched for', async () => {
    const { deps, users, dispose } = await fixture({ signupHook: signupHook() });
    onlyExampleDotCom();
    const email = `user-${crypto.randomUUID()}@elsewhere.test`;
    expect(await failureOf(createMigratedAccount(deps, { email, password: PASSWORD }))).toMatchObject({ code: 'signup_refused', reason: 'domain_not_allowed' });
    expect(receiver.received.at(-1)!.event!.data).toEqual({ email, method: 'migration' });
    expect(await users.getUserByEmail(email)).toBeUndefined();
    dispose();
  });

  it("is asked before a first federated sign-in creates an account, with the provider, and not for an identity that creates none", async () => {
    const { deps, users, dispose } = await fixture({ signupHook: signupHook() });
    onlyExampleDotCom();
    const identity = (email: string) => ({ provider: 'google', subject: crypto.randomUUID(), email, emailVerified: true, providerMfa: false });
    const refused = `user-${crypto.randomUUID()}@elsewhere.test`;
    expect(await failureOf(resolveIdentity(deps, identity(refused)))).toMatchObject({ code: 'signup_refused', reason: 'domain_not_allowed' });
    expect(receiver.received.at(-1)!.event!.data).toEqual({ email: refused, method: 'federated', provider: 'google' });
    expect(await users.getUserByEmail(refused)).toBeUndefined();

    const allowed = await resolveIdentity(deps, identity(uniqueEmail()));
    expect(allowed.kind).toBe('account');
    // An address with an account already: a link, no account made, so nothing to ask.
    const existing = await account(deps);
    const before = receiver.received.length;
    expect((await resolveIdentity(deps, identity(existing))).kind).toBe('link_required');
    expect(receiver.received.length).toBe(before);
    dispose();
  });
});
