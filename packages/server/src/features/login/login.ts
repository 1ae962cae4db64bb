import { PasslaneError, type VerifyResult } from 'passlane/common';
import { HashChangedError, StorageUnavailableError } from '../../storage/errors.js';
import { SessionsChangedError } from '../../storage/session-store.js';
import type { UserRecord } from '../../storage/account-store.js';
import type { GiveBack, LoginGuardStore, LoginState, LoginTarget } from '../../storage/login-guard-store.js';
import { auditExistingPassword } from '../password/check-new-password.js';
import type { LoginDependencies } from './dependencies.js';
import { EmailNotVerifiedError, InvalidCredentialsError, MfaRequiredError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { mfaMethods } from '../mfa/check-second-factor.js';
import { hasActiveFactor, type StoredMfa } from '../../storage/mfa-store.js';
import { MFA_LIMITS } from '../mfa/settings.js';
import { newMfaToken, passwordMark } from './mfa-token.js';
import { askOldSystem, createMigratedAccount, MIGRATION_RETRY_AFTER_SECONDS } from '../migration/migrate-account.js';
import type { MigrationAnswer, MigrationSource } from '../migration/migration-source.js';
import { sendVerification } from '../recovery/send-verification.js';
import { countedLogin } from './login-guard.js';
import { releaseLoginAttempt, reserveLoginAttempt } from './login-attempt.js';
import { loginVerifyShape } from './login-failure-timing.js';
import { knownDevice, type KnownDevice } from '../sessions/known-device.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { startSession, type StartedSession } from '../sessions/start-session.js';
import type { RefreshResponse } from '../sessions/refresh-session.js';
import type { StartSessionDependencies } from '../sessions/dependencies.js';
import { translateErrors } from '../../accounts/translate-errors.js';
import { canonicalEmail } from '../../accounts/canonical-email.js';
import { PASSWORD_RESET_REQUIRED } from '../../accounts/password-reset-required.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';

export interface LoginRequest {
  /** As typed: its canonical form (canonical-email.ts) is the account's key. */
  email: string;
  password: string;
  sourceIp?: string;
  /** The User-Agent header: its family is what GET /sessions shows of the session. */
  userAgent?: string;
  /**
   * Device tokens the client holds (the body's `deviceToken`, the `__Host-` cookies): one of
   * this account's makes the login count against that device only (known-device.ts).
   */
  deviceTokens?: readonly string[];
}

/** A session's first pair (its refresh token is spent by POST /token: sessions/README.md), and the device's token. */
export interface LoginResponse extends RefreshResponse {
  /** Kept by the client and presented at its next logins (packages/server/src/features/sessions/device-token.ts). */
  deviceToken: string;
  deviceExpiresIn: number;
}

/** A password changed while we upgraded: read again and decide again, this many times at most. */
const MAX_DECISIONS = 3;

/**
 * The password's bound first (the same answer whatever is stored), then one consistent read of
 * the account and its failure counters, the limits, and one verify: against the stored hash, or
 * a dummy at current parameters for an unknown email or a record that cannot be verified; every
 * failure is padded to the slowest stored shape (login-failure-timing.ts): whatever is stored, a
 * failure takes the same time and answers the same. The attempt is reserved on its counters
 * before the verify (login-attempt.ts), so a failure writes nothing after it and a good login
 * gives its reservation back. An outdated hash
 * is upgraded conditionally on the one just verified; if a password change overtook the read,
 * the login reads again and decides again, and issues no token on the stale read. With lazy
 * migration on (deps.migration), an email with no account is asked of the old system in the
 * verify's place (migrate-account.ts): after the limits, padded alike on "no"; on "yes" the
 * account is created conditionally and the login goes on as a good one.
 */
export async function login(deps: LoginDependencies, request: LoginRequest): Promise<LoginResponse> {
  const email = canonicalEmail(request.email);
  const { password } = request;
  return translateErrors(async () => {
    deps.hasher.checkPassword(password);
    const fingerprint = deps.fingerprint(email);
    for (let decision = 1; ; decision++) {
      const now = deps.now?.() ?? new Date();
      const target: LoginTarget = { email, accountKey: fingerprint, sourceKey: sourceKeyOf(request.sourceIp), now };
      const state = await deps.loginGuard.read(target, { breaker: deps.migration !== undefined });
      const device = knownDevice(state.sessions, state.user?.userId, request.deviceTokens, epochSeconds(now));
      // Counted before the verify (login-attempt.ts): a burst checks no more passwords than the limits allow.
      const held = await reserveLoginAttempt(deps, target, state, device);
      const release = (as: GiveBack) => releaseLoginAttempt(deps, target, held, as);

      const timing = deps.failureTiming?.start();
      // Inside the window: the old system's latency is part of what every failure is padded to,
      // so the time taken does not tell an email with an account from one without.
      const verdict: Verdict =
        !state.user && deps.migration
          ? await askOldSystemUnlessDown(deps, deps.migration, state, { email, password, fingerprint }, now)
          : await verifyOrDummy(deps, state.user, password);
      const padding = timing?.done(loginVerifyShape(deps.hasher, state.user?.passwordHash, verdict)) ?? 0;
      // While the old system is down (lately or just now) every failure is `temporarily_unavailable`, the unknown
      // email's and the wrong password's alike, so an outage lists nobody (migrate-account.ts).
      const outage = verdict.unavailable === true || (state.breaker !== undefined && verdict.migration === undefined);
      if (!verdict.ok || (!state.user && !verdict.migration)) {
        // The attempt stays counted (its reservation). The answer waits for the slowest verify seen.
        await Promise.all([
          deps.failureTiming?.pad(padding),
          verdict.unavailable === true ? deps.loginGuard.openBreaker(now, epochSeconds(now) + MIGRATION_RETRY_AFTER_SECONDS) : undefined,
          state.breaker !== undefined && verdict.migration !== undefined ? closeBreaker(deps, now) : undefined,
        ]);
        deps.audit({
          type: 'auth.login_failed',
          reason: failureReason(state, verdict),
          ...(state.user && { userId: state.user.userId }),
          emailFingerprint: fingerprint,
          ...(device !== undefined && { knownDevice: true }),
        });
        if (outage) throw new TemporarilyUnavailableError(retryAfter(state, verdict, now));
        throw new InvalidCredentialsError();
      }
      // The old system answered "yes": it is up again.
      if (state.breaker !== undefined && verdict.migration !== undefined) await closeBreaker(deps, now);
      let user = state.user;
      if (!user) {
        // Only the old system's "yes" gets here. Lost to a registration (or a twin login): read again.
        const created = await createMigratedAccount(deps, { email, password, emailVerified: migratedEmailVerified(verdict.migration) });
        if (created === 'taken') {
          await release('right_secret');
          if (decision < MAX_DECISIONS) continue;
          throw new TemporarilyUnavailableError(1);
        }
        user = created;
      }
      // Only after the password verified, so it tells a guesser nothing.
      if (deps.recovery.requireVerifiedEmail && user.emailVerified !== true) {
        deps.audit({ type: 'auth.login_unverified', userId: user.userId });
        await release('right_secret');
        await sendVerification(deps, { email: user.email, accountKey: fingerprint, userId: user.userId });
        throw new EmailNotVerifiedError();
      }
      const upgrade = verdict.needsRehash ? await upgradeHash(deps, user, password) : undefined;
      if (upgrade === 'overtaken') {
        await release('right_secret');
        if (decision < MAX_DECISIONS) continue;
        throw new TemporarilyUnavailableError(1);
      }
      const verifiedHash = typeof upgrade === 'object' ? upgrade.newHash : user.passwordHash;
      // Only after the password verified (a wrong one never gets here): an account with a second
      // factor gets an MFA token instead of a session, and POST /login/mfa finishes the login.
      if (hasActiveFactor(state.factors)) {
        await release('second_factor_due');
        throw await mfaChallenge(deps, { userId: user.userId, email: user.email, accountKey: fingerprint, verifiedHash }, state.factors!);
      }
      const session = await startLoginSession(deps, request, target, state, user, verifiedHash);
      if (session === 'overtaken') {
        await release('right_secret');
        if (decision < MAX_DECISIONS) continue;
        throw new TemporarilyUnavailableError(1);
      }
      // The email's failures end; the source's attempt becomes one of its good logins.
      await release('success');
      deps.audit({ type: 'auth.login_succeeded', userId: user.userId });
      // Counted, never refused: the rules apply when a password is set (check-new-password.ts).
      auditExistingPassword(deps, user, password);
      return await answerLogin(deps, user, session);
    }
  });
}

/**
 * The password step's answer on an account with a second factor: a new MFA token, stored by its
 * hash with the account and a mark of the password verified, and with the account's passkeys the
 * request options of an assertion (its challenge stored in the token's item, spent with it).
 * Failures stay counted until the second factor is right (POST /login/mfa clears them).
 */
async function mfaChallenge(
  deps: LoginDependencies,
  login: { userId: string; email: string; accountKey: string; verifiedHash: string },
  factors: StoredMfa,
): Promise<MfaRequiredError> {
  const methods = mfaMethods(factors, { webauthn: deps.webauthn !== undefined });
  // Imported here, not at the top: a password login's cold start does not parse @simplewebauthn (the Lambda bundle keeps it in a chunk).
  const webauthn =
    deps.webauthn !== undefined && methods.includes('webauthn')
      ? await (await import('../../webauthn/check-passkey-assertion.js')).secondFactorOptions(deps.webauthn, factors.passkeys)
      : undefined;
  const { token, hash } = newMfaToken();
  const now = deps.now?.() ?? new Date();
  await deps.mfa.putLogin(hash, {
    userId: login.userId,
    email: login.email,
    accountKey: login.accountKey,
    passwordMark: passwordMark(login.verifiedHash),
    expiresAt: epochSeconds(now) + MFA_LIMITS.loginTokenSeconds,
    ...(webauthn !== undefined && { webauthnChallenge: webauthn.challenge }),
  });
  deps.audit({ type: 'auth.mfa_challenged', userId: login.userId });
  return new MfaRequiredError(token, methods, webauthn);
}

/** Session writes lost to another login of the account before the login gives up (each re-reads). */
const MAX_SESSION_ATTEMPTS = 3;

/** A started session's answer: its access token (the session's authentication in it), refresh token and device token. */
export async function answerLogin(
  deps: Pick<LoginDependencies, 'tokens' | 'now'>,
  user: Pick<UserRecord, 'userId' | 'emailVerified'>,
  session: StartedSession,
): Promise<LoginResponse> {
  const access = await deps.tokens.issue({ userId: user.userId, sessionId: session.sessionId, emailVerified: user.emailVerified === true, ...session.authentication, now: deps.now?.() });
  return {
    ...access,
    refreshToken: session.refreshToken,
    refreshExpiresIn: session.refreshExpiresIn,
    deviceToken: session.device.token,
    deviceExpiresIn: session.device.expiresIn,
  };
}

/**
 * The login's session, written on the condition that no password change purged the sessions
 * since the read (and that the device it presented was not forgotten meanwhile). Lost (to that,
 * or to a first login of the account creating the item), it reads again: 'overtaken' when the
 * password changed since the verify, else it retries with what it read.
 */
export async function startLoginSession(
  deps: StartSessionDependencies & Pick<LoginDependencies, 'rateLimits' | 'now'> & { loginGuard: Pick<LoginGuardStore, 'read'> },
  request: Pick<LoginRequest, 'sourceIp' | 'userAgent' | 'deviceTokens'>,
  target: LoginTarget,
  state: LoginState,
  user: UserRecord,
  verifiedHash: string,
  amr?: readonly string[],
): Promise<(StartedSession & { knownDevice: boolean }) | 'overtaken'> {
  let read = state.sessions;
  for (let attempt = 1; ; attempt++) {
    try {
      const { sourceIp, userAgent } = request;
      const now = deps.now?.() ?? new Date();
      const device: KnownDevice | undefined = knownDevice(read, user.userId, request.deviceTokens, epochSeconds(now));
      const started = await startSession(deps, {
        userId: user.userId,
        emailVerified: user.emailVerified === true,
        accountKey: target.accountKey,
        read,
        sourceIp,
        userAgent,
        ...(device !== undefined && { device }),
        logins: countedLogin(read, deps.rateLimits, epochSeconds(now)),
        ...(amr !== undefined && { amr }),
        now,
      });
      return { ...started, knownDevice: device !== undefined };
    } catch (error) {
      if (!(error instanceof SessionsChangedError)) throw error;
      if (attempt >= MAX_SESSION_ATTEMPTS) throw new TemporarilyUnavailableError(1, { cause: error });
    }
    const fresh = await deps.loginGuard.read({ ...target, now: deps.now?.() ?? new Date() });
    if (fresh.user?.passwordHash !== verifiedHash) return 'overtaken';
    read = fresh.sessions;
  }
}

/** A verify's result, or the old system's answer in its place (`migration`), or its silence (`unavailable`). */
type Verdict = VerifyResult & { unverifiable?: boolean; resetRequired?: boolean; migration?: MigrationAnswer; unavailable?: boolean };

/**
 * The old system's answer, unless its breaker is open: then only the dummy verify, until
 * `retryAt`, from when one login at a time (per container) asks it again.
 */
async function askOldSystemUnlessDown(
  deps: LoginDependencies,
  migration: MigrationSource,
  state: LoginState,
  input: { email: string; password: string; fingerprint: string },
  now: Date,
): Promise<Verdict> {
  if (state.breaker !== undefined && epochSeconds(now) < state.breaker.retryAt) {
    return { ...(await deps.hasher.verifyDummy(input.password)), ok: false, needsRehash: false, unavailable: true };
  }
  return askOldSystem(deps, migration, input);
}

/** Best effort: a breaker left open only makes failures `temporarily_unavailable` until a question is answered. */
async function closeBreaker(deps: LoginDependencies, now: Date): Promise<void> {
  await deps.loginGuard.closeBreaker(now).catch((error: unknown) => {
    if (!(error instanceof StorageUnavailableError)) throw error;
  });
}

/** Until the old system may be asked again: the breaker's time, or a fresh outage's. */
function retryAfter(state: LoginState, verdict: Verdict, now: Date): number {
  if (verdict.unavailable !== true && state.breaker !== undefined) return Math.max(1, state.breaker.retryAt - epochSeconds(now));
  return MIGRATION_RETRY_AFTER_SECONDS;
}

function failureReason(state: LoginState, verdict: Verdict): 'unknown_account' | 'wrong_password' | 'unverifiable_record' | 'password_reset_required' | 'migration_rejected' | 'migration_unavailable' {
  if (verdict.unavailable === true) return 'migration_unavailable';
  if (verdict.migration !== undefined) return 'migration_rejected';
  if (!state.user) return 'unknown_account';
  if (verdict.resetRequired === true) return 'password_reset_required';
  return verdict.unverifiable === true ? 'unverifiable_record' : 'wrong_password';
}

function migratedEmailVerified(answer: MigrationAnswer | undefined): boolean | undefined {
  return answer?.valid ? answer.emailVerified : undefined;
}

/**
 * The stored hash, or the dummy when there is none or it cannot be verified (corrupt, unknown
 * format, retired pepper key): that record answers like a wrong password, at the same cost,
 * and raises an audit event (and its metric) for the operator instead of an `internal_error`.
 */
async function verifyOrDummy(
  deps: LoginDependencies,
  user: UserRecord | undefined,
  password: string,
): Promise<VerifyResult & { unverifiable?: boolean; resetRequired?: boolean }> {
  if (!user) return deps.hasher.verifyDummy(password);
  // Locked by an undo from the owner's mailbox: no password opens it, and it is no operator's fault to report.
  if (user.passwordHash === PASSWORD_RESET_REQUIRED) return { ...(await deps.hasher.verifyDummy(password)), unverifiable: true, resetRequired: true };
  try {
    return await deps.hasher.verify(user.passwordHash, password);
  } catch (error) {
    if (!isUnverifiableRecord(error)) throw error;
    deps.audit({ type: 'auth.stored_hash_rejected', userId: user.userId, code: (error as PasslaneError).code });
    return { ...(await deps.hasher.verifyDummy(password)), unverifiable: true };
  }
}

/** Errors about the stored value, not about the password or the hasher's health. */
const RECORD_ERROR_CODES = new Set(['ERR_HASH_UNSUPPORTED', 'ERR_HASH_MALFORMED', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS', 'ERR_PEPPER_KEY', 'ERR_OPTIONS_INVALID']);

function isUnverifiableRecord(error: unknown): boolean {
  return error instanceof PasslaneError && RECORD_ERROR_CODES.has(error.code);
}

/**
 * Replaces an outdated hash after a good login, conditionally on the hash just verified.
 * 'overtaken': the stored hash changed since the read (a password change), so the verify that
 * allowed this login is stale. Storage faults only delay the upgrade. Done: the hash now stored.
 */
async function upgradeHash(deps: LoginDependencies, user: UserRecord, password: string): Promise<{ newHash: string } | 'skipped' | 'overtaken'> {
  const newHash = await deps.hasher.upgrade(user.passwordHash, password);
  if (newHash === undefined) return 'skipped';
  try {
    await deps.users.replacePasswordHash({ email: user.email, expectedHash: user.passwordHash, newHash, reason: 'rehash', now: deps.now?.() });
    deps.audit({ type: 'auth.password_rehashed', userId: user.userId, from: describe(deps, user.passwordHash), to: describe(deps, newHash) });
    return { newHash };
  } catch (error) {
    if (error instanceof HashChangedError) {
      deps.audit({ type: 'auth.password_rehash_skipped', userId: user.userId, reason: 'hash_changed' });
      return 'overtaken';
    }
    if (error instanceof StorageUnavailableError) {
      deps.audit({ type: 'auth.password_rehash_skipped', userId: user.userId, reason: 'storage_unavailable' });
      return 'skipped';
    }
    throw error;
  }
}

function describe(deps: LoginDependencies, stored: string): string {
  const { scheme, parameters, pepperKeyId } = deps.hasher.describe(stored);
  return [scheme, parameters, pepperKeyId && `pepper=${pepperKeyId}`].filter(Boolean).join(' ');
}
