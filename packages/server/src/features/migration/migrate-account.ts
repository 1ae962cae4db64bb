/**
 * Lazy migration (packages/server/src/features/migration/README.md): at login an email with no account is checked
 * against the old system, and on its "yes" the account is created as registration creates it;
 * login.ts decides when (after the limits, inside the failure-timing window) and what follows.
 * At registration the old system is asked whether it still holds the email (register.ts).
 */
import type { VerifyResult } from 'passlane/common';
import type { UserRecord } from '../../storage/account-store.js';
import { AccountExistsError } from '../../storage/errors.js';
import type { MigrationDependencies } from './dependencies.js';
import { TemporarilyUnavailableError } from '../../accounts/errors.js';
import { checkSignup } from '../../accounts/check-signup.js';
import { MigrationUnavailableError, type MigrationAnswer, type MigrationSource } from './migration-source.js';

/** Long enough for a blip of the old system to pass; an outage is the operator's to see (audit). */
export const MIGRATION_RETRY_AFTER_SECONDS = 5;

/**
 * The dummy verify first, so a "no" costs what any unknown email costs (and an overloaded
 * hasher is `temporarily_unavailable` before the old system is asked), then the one question.
 * Without an answer: audited, and `unavailable` (login.ts opens the breaker and answers every
 * failure `temporarily_unavailable` while it is open, so the outage shows nobody which emails
 * have an account here); nothing is created.
 */
export async function askOldSystem(
  deps: MigrationDependencies,
  migration: MigrationSource,
  input: { email: string; password: string; fingerprint: string },
): Promise<VerifyResult & ({ migration: MigrationAnswer } | { unavailable: true })> {
  const dummy = await deps.hasher.verifyDummy(input.password);
  try {
    const answer = await migration.check(input.email, input.password);
    return { ...dummy, ok: answer.valid, needsRehash: false, migration: answer };
  } catch (error) {
    if (!(error instanceof MigrationUnavailableError)) throw error;
    auditUnavailable(deps, input.fingerprint, error);
    return { ...dummy, ok: false, needsRehash: false, unavailable: true };
  }
}

/**
 * At registration: whether the old system still holds the email. Such an email is taken, so
 * nobody can register an account its owner has yet to bring over by logging in. Without an
 * answer: audited, and `temporarily_unavailable`, as at login; nothing is created.
 */
export async function oldSystemHolds(deps: Pick<MigrationDependencies, 'audit' | 'fingerprint'>, migration: MigrationSource, email: string): Promise<boolean> {
  return answerOrUnavailable(deps, deps.fingerprint(email), () => migration.holds(email));
}

/** The old system's answer; without one, the audit event and TemporarilyUnavailableError. */
async function answerOrUnavailable<T>(
  deps: Pick<MigrationDependencies, 'audit'>,
  fingerprint: string,
  ask: () => Promise<T>,
): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (!(error instanceof MigrationUnavailableError)) throw error;
    auditUnavailable(deps, fingerprint, error);
    throw new TemporarilyUnavailableError(MIGRATION_RETRY_AFTER_SECONDS, { cause: error });
  }
}

function auditUnavailable(deps: Pick<MigrationDependencies, 'audit'>, fingerprint: string, error: MigrationUnavailableError): void {
  deps.audit({
    type: 'auth.migration_unavailable',
    reason: error.reason,
    ...(error.status !== undefined && { status: error.status }),
    emailFingerprint: fingerprint,
  });
}

/**
 * The account for a password the old system accepted, written on the condition that the email
 * is still free (as registration writes it). `upgrade: true`: the old system's own rules
 * admitted this password, and refusing one shorter than today's minimum would lock its owner
 * out at the very login meant to bring them over; the rules apply when they next set one, and
 * login counts it meanwhile (auditExistingPassword). The old system's emailVerified is trusted;
 * without it the email counts as unverified where verification is on, as a new registration's.
 * 'taken': someone registered (or this login's twin migrated) the email meanwhile.
 */
export async function createMigratedAccount(
  deps: MigrationDependencies,
  input: { email: string; password: string; emailVerified?: boolean },
): Promise<UserRecord | 'taken'> {
  // The sign-up hook's rule holds for accounts the old system vouches for too (SignupRefusedError).
  await checkSignup(deps, { email: input.email, method: 'migration' });
  const passwordHash = await deps.hasher.hash(input.password, { upgrade: true });
  const userId = deps.newUserId?.() ?? crypto.randomUUID();
  const createdAt = deps.now();
  const emailVerified = input.emailVerified ?? (deps.recovery.emailVerification ? false : undefined);
  const user: UserRecord = { userId, email: input.email, passwordHash, createdAt, ...(emailVerified !== undefined && { emailVerified }) };
  try {
    await deps.users.createUser(user, deps.accountEvents.of('user.registered', userId, { email: input.email, method: 'migration' }));
  } catch (error) {
    if (error instanceof AccountExistsError) return 'taken';
    throw error;
  }
  deps.audit({ type: 'auth.account_migrated', userId, emailVerified: emailVerified === true });
  return user;
}
