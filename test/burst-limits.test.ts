/**
 * Limits under a burst (issue 33): every guess limit is an atomic conditional write made before
 * the secret is checked, so 200 concurrent attempts check no more secrets than the limit allows,
 * per counter: one email from one source, one email from anywhere, one source on any email, one
 * known device; an MFA token's codes, a factor's codes over its life (across many MFA tokens), MFA
 * tokens minted by right passwords; a passkey's assertions; the secrets presented for a reset or
 * verification token, and the clients presenting a device approval link. What a secret check costs is counted where it happens (the hasher, the
 * TOTP secret's opening, the audit of each compared token or assertion), on both real DynamoDB
 * servers. Before counting came first (the counters were read before the check and written
 * after it), each burst checked nearly every attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FactorSuspendedError, InvalidCredentialsError, InvalidMfaCodeError, InvalidMfaTokenError, InvalidOneTimeTokenError, InvalidPasskeyError, RateLimitedError } from '../packages/server/src/accounts/errors.js';
import type { AuditEvent } from '../packages/server/src/accounts/audit-events.js';
import { confirmTotp, enrolTotp } from '../packages/server/src/features/mfa/manage-totp.js';
import { MFA_LIMITS } from '../packages/server/src/features/mfa/settings.js';
import { passkeyLoginOptions } from '../packages/server/src/features/passkeys/passkey-login.js';
import { passkeyRegistrationOptions, registerPasskey } from '../packages/server/src/features/passkeys/register-passkey.js';
import type { WebAuthnConfig } from '../packages/server/src/features/passkeys/settings.js';
import { confirmPasswordReset } from '../packages/server/src/features/recovery/confirm-password-reset.js';
import { requestPasswordReset } from '../packages/server/src/features/recovery/request-password-reset.js';
import { verifyEmail } from '../packages/server/src/features/recovery/verify-email.js';
import { register } from '../packages/server/src/features/register/register.js';
import { approveDevice } from '../packages/server/src/features/device-approval/approve-device.js';
import { requestDeviceApproval } from '../packages/server/src/features/device-approval/request-device-approval.js';
import type { AppDependencies } from '../packages/server/src/wiring/index.js';
import { authenticatorApp } from './support/authenticator-app.js';
import { countingHasher, createAuthFixture, limits, uniqueEmail } from './support/auth-fixture.js';
import { failureOf, movableClock } from './support/clock.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { softwareAuthenticator } from './support/software-authenticator.js';
import { login } from '../packages/server/src/features/login/login.js';
import { loginSession, mfaRequiredOf, passkeySession, secondFactorSession, type LoginSession } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
const SOURCE = '198.51.100.7';
const BURST = 200;
const ORIGIN = 'https://app.example.com';
const WEBAUTHN: WebAuthnConfig = { rpId: 'example.com', origins: [ORIGIN], rpName: 'passlane-test' };
/** Limits high enough that only the counter under test binds. */
const OPEN = { perSource: 100_000 };
const OPEN_LOGIN = { failuresPerAccountSource: 100_000, accountFailureCeiling: 100_000 };
/** Only one email from one source (or one device) binds: 5 failures, then waits. */
const ONE_SOURCE = { accountFailureCeiling: 100_000 };

/** The i-th of many sources (IPv4 in TEST-NET-3 and beyond: one source each). */
const sourceNo = (i: number) => `203.0.${Math.floor(i / 250)}.${(i % 250) + 1}`;

/** Runs `attempts` all at once; each settles to its error, or undefined for a success. */
async function burst(attempts: number, attempt: (i: number) => Promise<unknown>): Promise<unknown[]> {
  return Promise.all(Array.from({ length: attempts }, (_, i) => failureOf(attempt(i))));
}


/** How many attempts a limit refused (429). */
const limitedOf = (outcomes: unknown[]) => outcomes.filter((outcome) => outcome instanceof RateLimitedError).length;

describe.each(dynamoDbServers)('limits under a burst on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function account(overrides: Partial<AppDependencies> = {}) {
    const counting = countingHasher();
    const fixture = await createAuthFixture(server.endpoint, { hasher: counting.hasher, ...overrides }, { burst: true });
    const email = uniqueEmail();
    await register(fixture.deps, { email, password: PASSWORD });
    const verifies = () => counting.calls.verify + counting.calls.verifyDummy;
    return { ...fixture, email, verifies };
  }

  it('checks at most 5 passwords of one email from one source; the rest are 429 before any hash', async () => {
    const { deps, email, verifies, dispose } = await account({ rateLimits: limits(OPEN, ONE_SOURCE) });
    const outcomes = await burst(BURST, () => loginSession(deps, { email, password: WRONG, sourceIp: SOURCE }));
    const limited = limitedOf(outcomes);
    const wrong = outcomes.filter((outcome) => outcome instanceof InvalidCredentialsError).length;
    expect(verifies()).toBe(wrong);
    expect(wrong).toBe(5);
    expect(limited).toBe(BURST - wrong);
    // Each refusal says how long to wait: the wait the fifth failure set.
    expect(outcomes.filter((outcome) => outcome instanceof RateLimitedError).every((error) => (error as RateLimitedError).retryAfterSeconds >= 1)).toBe(true);
    dispose();
  });

  it('checks at most the account-wide ceiling of one email from 200 sources', async () => {
    const { deps, email, verifies, dispose } = await account({ rateLimits: limits(OPEN, { accountFailureCeiling: 20 }) });
    const all = await burst(BURST, (i) => loginSession(deps, { email, password: WRONG, sourceIp: sourceNo(i) }));
    const limited = limitedOf(all);
    expect(verifies()).toBe(20);
    expect(limited).toBe(BURST - 20);
    dispose();
  });

  it('checks at most the per-source limit of one source across 200 emails (unknown ones included)', async () => {
    const { deps, verifies, dispose } = await account({ rateLimits: limits({ perSource: 20 }, OPEN_LOGIN) });
    const limited = limitedOf(await burst(BURST, () => loginSession(deps, { email: uniqueEmail(), password: WRONG, sourceIp: SOURCE })));
    expect(verifies()).toBe(20);
    expect(limited).toBe(BURST - 20);
    dispose();
  });

  it('checks at most 5 passwords presented with one known device', async () => {
    // A device waits after as many failures as one source on the account does (5).
    const { deps, email, verifies, dispose } = await account({ rateLimits: limits(OPEN, ONE_SOURCE) });
    const { deviceToken } = await loginSession(deps, { email, password: PASSWORD, sourceIp: SOURCE });
    const before = verifies();
    const limited = limitedOf(await burst(BURST, (i) => loginSession(deps, { email, password: WRONG, sourceIp: sourceNo(i), deviceTokens: [deviceToken] })));
    expect(verifies() - before).toBe(5);
    expect(limited).toBe(BURST - 5);
    dispose();
  });

  /** An account with TOTP on, whose secret openings (one per code checked) are counted. */
  async function withTotp(rateLimits = limits(OPEN, OPEN_LOGIN)) {
    // 10 s into a TOTP step, 10 minutes back: access tokens are checked at the real time too, and must not come from the future.
    const clock = movableClock(Math.floor(Date.now() / 30_000) * 30_000 - 590_000);
    const fixture = await account({ now: clock.now, rateLimits });
    const { deps, email } = fixture;
    const first = await loginSession(deps, { email, password: PASSWORD, sourceIp: SOURCE });
    const app = authenticatorApp((await enrolTotp(deps, { accessToken: first.accessToken })).otpauthUri);
    const { recoveryCodes } = await confirmTotp(deps, { accessToken: first.accessToken, code: app.codeAt(clock.now()) });
    clock.advance(30);
    let opened = 0;
    const open = deps.secretBox.open.bind(deps.secretBox);
    deps.secretBox = { ...deps.secretBox, open: (accountKey, sealed) => (opened++, open(accountKey, sealed)) };
    const mfaToken = async (sourceIp = SOURCE) => {
      return (await mfaRequiredOf(login(deps, { email, password: PASSWORD, sourceIp }))).mfaToken;
    };
    return { ...fixture, clock, app, recoveryCodes: recoveryCodes!, mfaToken, opened: () => opened };
  }

  it('checks at most 5 codes on one MFA token, however many arrive at once', async () => {
    const { deps, mfaToken, opened, dispose } = await withTotp();
    const token = await mfaToken();
    const outcomes = await burst(BURST, (i) => secondFactorSession(deps, { mfaToken: token, method: 'totp', code: '000000', sourceIp: sourceNo(i) }));
    const wrong = outcomes.filter((outcome) => outcome instanceof InvalidMfaCodeError).length;
    expect(opened()).toBe(wrong);
    expect(wrong).toBe(MFA_LIMITS.wrongCodesPerToken);
    expect(outcomes.filter((outcome) => outcome instanceof InvalidMfaTokenError)).toHaveLength(BURST - wrong);
    dispose();
  });

  it('checks at most 100 codes of a factor over its life across 40 MFA tokens, then suspends it until a recovery code is used', async () => {
    const { deps, email, clock, app, recoveryCodes, mfaToken, opened, mailbox, dispose } = await withTotp();
    const tokens: string[] = [];
    for (let i = 0; i < 40; i++) tokens.push(await mfaToken(sourceNo(i)));
    const outcomes = await burst(BURST, (i) => secondFactorSession(deps, { mfaToken: tokens[i % 40]!, method: 'totp', code: '000000', sourceIp: sourceNo(i) }));
    const wrong = outcomes.filter((outcome) => outcome instanceof InvalidMfaCodeError).length;
    expect(opened()).toBe(wrong);
    expect(wrong).toBe(MFA_LIMITS.factorFailures);
    expect(outcomes.filter((outcome) => outcome instanceof FactorSuspendedError)).toHaveLength(BURST - wrong);
    // The owner heard of it twice: at the first burst and at the suspension.
    const told = mailbox.sent.filter((mail) => mail.kind === 'mfa_changed' && mail.to === email).map((mail) => mail.change);
    expect(told).toEqual(expect.arrayContaining(['factor_failures', 'factor_suspended']));
    expect(told.filter((change) => change === 'factor_failures' || change === 'factor_suspended')).toHaveLength(2);

    // Suspended: even the right code is not checked, and mfa_required no longer offers TOTP.
    const suspended = await mfaToken(sourceNo(300));
    expect(await failureOf(secondFactorSession(deps, { mfaToken: suspended, method: 'totp', code: app.codeAt(clock.now()), sourceIp: sourceNo(300) }))).toBeInstanceOf(FactorSuspendedError);
    const offered = await mfaRequiredOf(login(deps, { email, password: PASSWORD, sourceIp: sourceNo(301) }));
    expect(offered.methods).toEqual(['recovery_code']);
    // A recovery code proves control: the count ends and TOTP works again.
    const recovered = await secondFactorSession(deps, { mfaToken: suspended, method: 'recovery_code', code: recoveryCodes[0]!, sourceIp: sourceNo(300) });
    expect(recovered.accessToken).toEqual(expect.any(String));
    clock.advance(30);
    const again: LoginSession = await secondFactorSession(deps, { mfaToken: await mfaToken(sourceNo(302)), method: 'totp', code: app.codeAt(clock.now()), sourceIp: sourceNo(302) });
    expect(again.accessToken).toEqual(expect.any(String));
    dispose();
  });

  it('holds a right password whose second factor is due on the email: 200 sources mint no more MFA tokens than the ceiling', async () => {
    const { deps, email, verifies, dispose } = await withTotp(limits(OPEN, { accountFailureCeiling: 20 }));
    const before = verifies();
    // An MFA token minted is a success: no failure.
    const outcomes = await burst(BURST, (i) => mfaRequiredOf(login(deps, { email, password: PASSWORD, sourceIp: sourceNo(i) })));
    const minted = outcomes.filter((outcome) => outcome === undefined).length;
    expect(verifies() - before).toBe(minted);
    // The first login and the enrolment's left none behind: the run's 20 attempts, then its lock.
    expect(minted).toBe(20);
    expect(limitedOf(outcomes)).toBe(BURST - 20);
    dispose();
  });

  it('checks at most 5 passkey assertions of one account from one source', async () => {
    const clock = movableClock();
    const fixture = await account({ now: clock.now, webauthn: WEBAUTHN, rateLimits: limits(OPEN, ONE_SOURCE) });
    const { deps, email, events, dispose } = fixture;
    const first = await loginSession(deps, { email, password: PASSWORD, sourceIp: SOURCE });
    const owner = softwareAuthenticator({ origin: ORIGIN });
    const creation = await passkeyRegistrationOptions(deps, { accessToken: first.accessToken });
    await registerPasskey(deps, { accessToken: first.accessToken, response: await owner.register(creation) });
    // Answers from another origin: each one's signature is checked, and refused.
    const assertions = await Promise.all(
      Array.from({ length: BURST }, async () => owner.authenticate(await passkeyLoginOptions(deps, { sourceIp: sourceNo(9) }), { origin: 'https://evil.example.net' })),
    );
    const outcomes = await burst(BURST, (i) => passkeySession(deps, { response: assertions[i]!, sourceIp: SOURCE }));
    const checked = events.filter((event: AuditEvent) => event.type === 'auth.passkey_login_failed').length;
    expect(outcomes.filter((outcome) => outcome instanceof InvalidPasskeyError)).toHaveLength(checked);
    expect(checked).toBe(5);
    expect(limitedOf(outcomes)).toBe(BURST - 5);
    dispose();
  });

  it('compares at most 5 secrets presented for one reset token, and for one verification token', async () => {
    const { deps, email, events, mailbox, dispose } = await account({ rateLimits: limits(OPEN) });
    await requestPasswordReset(deps, { email, sourceIp: SOURCE });
    const reset = mailbox.last('password_reset')!.token;
    const forged = (token: string, i: number) => `${token.split('.')[0]}.${Buffer.from(`forged secret ${String(i).padStart(18, '0')}`).toString('base64url').slice(0, 43)}`;
    const compared = (purpose: string) => events.filter((event) => event.type === 'auth.one_time_token_rejected' && event.purpose === purpose && event.reason === 'mismatch').length;

    const outcomes = await burst(BURST, (i) => confirmPasswordReset(deps, { token: forged(reset, i), newPassword: 'a new long passphrase', sourceIp: SOURCE }));
    expect(outcomes.every((outcome) => outcome instanceof InvalidOneTimeTokenError)).toBe(true);
    expect(compared('reset')).toBe(deps.recovery.wrongTokenLimit);
    // The limit voided the token: the right secret no longer works.
    expect(await failureOf(confirmPasswordReset(deps, { token: reset, newPassword: 'a new long passphrase', sourceIp: SOURCE }))).toBeInstanceOf(InvalidOneTimeTokenError);

    const verifying = await account({ rateLimits: limits(OPEN), recovery: { ...deps.recovery, requireVerifiedEmail: true } });
    expect(await failureOf(loginSession(verifying.deps, { email: verifying.email, password: PASSWORD, sourceIp: SOURCE }))).toBeDefined();
    const verify = verifying.mailbox.last('email_verification')!.token;
    const verifyOutcomes = await burst(BURST, (i) => verifyEmail(verifying.deps, { token: forged(verify, i) }));
    expect(verifyOutcomes.every((outcome) => outcome instanceof InvalidOneTimeTokenError)).toBe(true);
    expect(verifying.events.filter((event) => event.type === 'auth.one_time_token_rejected' && event.reason === 'mismatch')).toHaveLength(verifying.deps.recovery.wrongTokenLimit);
    verifying.dispose();
    dispose();
  });

  it('compares the client secrets presented with one device approval link at most its limit of times', async () => {
    const { deps, email, events, mailbox, dispose } = await account({ rateLimits: limits(OPEN) });
    const asked = await requestDeviceApproval(deps, { email, sourceIp: SOURCE });
    const link = mailbox.sent.filter((mail) => mail.kind === 'device_approval').at(-1)!.token!;
    const others = await Promise.all(Array.from({ length: BURST }, async () => (await requestDeviceApproval(deps, { email: uniqueEmail(), sourceIp: sourceNo(7) })).clientSecret));
    const outcomes = await burst(BURST, (i) => approveDevice(deps, { token: link, clientSecrets: [others[i]!], sourceIp: sourceNo(i) }));
    expect(outcomes.every((outcome) => outcome instanceof InvalidOneTimeTokenError)).toBe(true);
    const compared = events.filter((event) => event.type === 'auth.one_time_token_rejected' && event.purpose === 'device_approval' && event.reason === 'wrong_client');
    expect(compared).toHaveLength(deps.deviceApproval.wrongClientLimit);
    // Voided at its limit: the asking client's own secret no longer approves.
    expect(await failureOf(approveDevice(deps, { token: link, clientSecrets: [asked.clientSecret], sourceIp: SOURCE }))).toBeInstanceOf(InvalidOneTimeTokenError);
    dispose();
  });
});
