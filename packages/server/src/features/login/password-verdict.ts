import { PasslaneError, type VerifyResult } from 'passlane/common';
import { InvalidCredentialsError, SignupHookUnavailableError, SignupRefusedError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { PASSWORD_RESET_REQUIRED } from '../../accounts/password-reset-required.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { UserRecord } from '../../storage/account-store.js';
import { HashChangedError, StorageUnavailableError } from '../../storage/errors.js';
import type { LoginState, LoginTarget } from '../../storage/login-guard-store.js';
import { askOldSystem, createMigratedAccount, MIGRATION_RETRY_AFTER_SECONDS } from '../migration/migrate-account.js';
import type { MigrationAnswer, MigrationSource } from '../migration/migration-source.js';
import { auditExistingPassword } from '../password/check-new-password.js';
import { knownDevice } from '../sessions/known-device.js';
import type { LoginDependencies } from './dependencies.js';
import { releaseLoginAttempt, reserveLoginAttempt } from './login-attempt.js';
import { loginVerifyShape } from './login-failure-timing.js';
import type { LoginClient, LoginVerdict } from './login-verdict.js';

/**
 * The password strategy: one consistent read of the account and its failure counters, the
 * attempt reserved on them (login-attempt.ts), and one verify: against the stored hash, or a
 * dummy at current parameters for an unknown email or a record that cannot be verified (a
 * legacy hash the hasher cannot read, the reset-required lock); every failure is padded to the
 * slowest stored shape (login-failure-timing.ts): whatever is stored, a failure takes the same
 * time and answers the same, and it writes nothing after the verify. With lazy migration on
 * (deps.migration), an email with no account is asked of the old system in the verify's place
 * (migrate-account.ts): after the limits, padded alike on "no"; on "yes" the account is created
 * conditionally ('overtaken' when a registration or a twin login took it first). A right
 * password is the verdict, with its rehash for the shared step.
 */
export async function passwordVerdict(
  deps: LoginDependencies,
  login: { email: string; password: string; fingerprint: string },
  client: LoginClient,
): Promise<LoginVerdict | 'overtaken'> {
  const { email, password, fingerprint } = login;
  const now = deps.now();
  const target: LoginTarget = { email, accountKey: fingerprint, sourceKey: sourceKeyOf(client.sourceIp), now };
  const state = await deps.loginGuard.read(target, { breaker: deps.migration !== undefined });
  const device = knownDevice(state.sessions, state.user?.userId, client.deviceTokens, epochSeconds(now));
  // Counted before the verify (login-attempt.ts): a burst checks no more passwords than the limits allow.
  const held = await reserveLoginAttempt(deps, target, state, device);

  const timing = deps.failureTiming?.start();
  // Inside the window: the old system's latency is part of what every failure is padded to,
  // so the time taken does not tell an email with an account from one without.
  const checked: Checked =
    !state.user && deps.migration
      ? await askOldSystemUnlessDown(deps, deps.migration, state, login, now)
      : await verifyOrDummy(deps, state.user, password);
  const padding = timing?.done(loginVerifyShape(deps.hasher, state.user?.passwordHash, checked)) ?? 0;
  if (!checked.ok || (!state.user && !checked.migration)) {
    // The attempt stays counted (its reservation). The answer waits for the slowest verify seen.
    await Promise.all([
      deps.failureTiming?.pad(padding),
      checked.unavailable === true ? deps.loginGuard.openBreaker(now, epochSeconds(now) + MIGRATION_RETRY_AFTER_SECONDS) : undefined,
      state.breaker !== undefined && checked.migration !== undefined ? closeBreaker(deps, now) : undefined,
    ]);
    deps.audit({
      type: 'auth.login_failed',
      reason: failureReason(state, checked),
      ...(state.user && { userId: state.user.userId }),
      emailFingerprint: fingerprint,
      ...(device !== undefined && { knownDevice: true }),
    });
    // While the old system is down (lately or just now) every failure is `temporarily_unavailable`, the unknown
    // email's and the wrong password's alike, so an outage lists nobody (migrate-account.ts).
    if (checked.unavailable === true || (state.breaker !== undefined && checked.migration === undefined)) {
      throw new TemporarilyUnavailableError(retryAfter(state, checked, now));
    }
    throw new InvalidCredentialsError();
  }
  // The old system answered "yes": it is up again.
  if (state.breaker !== undefined && checked.migration !== undefined) await closeBreaker(deps, now);
  let user = state.user;
  if (!user) {
    // Only the old system's "yes" gets here. Lost to a registration (or a twin login): read again.
    const created = await createMigratedAccount(deps, { email, password, emailVerified: migratedEmailVerified(checked.migration) }).catch(async (error: unknown) => {
      // The sign-up hook said no (or nothing): the password was right, so the attempt is given back as one.
      if (error instanceof SignupRefusedError || error instanceof SignupHookUnavailableError) await releaseLoginAttempt(deps, target, held, 'right_secret');
      throw error;
    });
    if (created === 'taken') {
      await releaseLoginAttempt(deps, target, held, 'right_secret');
      return 'overtaken';
    }
    user = created;
  }
  const account = user;
  return {
    user: account,
    target,
    state,
    held,
    verifiedHash: account.passwordHash,
    ...(checked.needsRehash && { rehash: () => upgradeHash(deps, account, password) }),
    // Counted, never refused: the rules apply when a password is set (check-new-password.ts).
    afterSuccess: async () => auditExistingPassword(deps, account, password),
  };
}

/** A verify's result, or the old system's answer in its place (`migration`), or its silence (`unavailable`). */
type Checked = VerifyResult & { unverifiable?: boolean; resetRequired?: boolean; migration?: MigrationAnswer; unavailable?: boolean };

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
): Promise<Checked> {
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
function retryAfter(state: LoginState, checked: Checked, now: Date): number {
  if (checked.unavailable !== true && state.breaker !== undefined) return Math.max(1, state.breaker.retryAt - epochSeconds(now));
  return MIGRATION_RETRY_AFTER_SECONDS;
}

function failureReason(state: LoginState, checked: Checked): 'unknown_account' | 'wrong_password' | 'unverifiable_record' | 'password_reset_required' | 'migration_rejected' | 'migration_unavailable' {
  if (checked.unavailable === true) return 'migration_unavailable';
  if (checked.migration !== undefined) return 'migration_rejected';
  if (!state.user) return 'unknown_account';
  if (checked.resetRequired === true) return 'password_reset_required';
  return checked.unverifiable === true ? 'unverifiable_record' : 'wrong_password';
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
    await deps.users.replacePasswordHash({ email: user.email, expectedHash: user.passwordHash, newHash, reason: 'rehash', now: deps.now() });
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
