import type { Audit } from '../../accounts/audit-events.js';
import { ReauthenticationRequiredError } from '../../accounts/errors.js';
import { hasActiveFactor, type StoredMfa } from '../../storage/mfa-store.js';
import type { StoredSession } from '../../storage/session-store.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { authenticateSession, type AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { SessionCheckDependencies } from '../sessions/dependencies.js';
import { MFA_LIMITS } from './settings.js';

/**
 * "Recent authentication": the session's login (its `createdAt`, the tokens' `auth_time`) was
 * within the last 5 minutes. Read from the stored session, not the token, so a refreshed token
 * does not make an old login recent. A stolen session (or refresh token) alone cannot add or
 * remove factors: the thief must know the password, and to remove one, a second factor.
 */
export function requireRecentLogin(session: Pick<StoredSession, 'createdAt'>, now: Date): void {
  if (epochSeconds(now) - session.createdAt > MFA_LIMITS.recentAuthSeconds) throw new ReauthenticationRequiredError();
}

/**
 * The caller of a route that changes factors: a live session whose login is recent. The factor
 * routes are how an account gets MFA, so PASSLANE_REQUIRE_MFA does not lock them.
 */
export async function recentCaller(deps: SessionCheckDependencies & { audit: Audit }, accessToken: string | undefined, now: Date): Promise<AuthenticatedSession> {
  const caller = await authenticateSession(deps, accessToken, now, { mfaExempt: true });
  try {
    requireRecentLogin(caller.session, now);
  } catch (error) {
    deps.audit({ type: 'auth.mfa_failed', reason: 'recent_login_required', userId: caller.userId });
    throw error;
  }
  return caller;
}

/**
 * A recent login that used a second factor (`mfa` in the session's `amr`): what changing an
 * existing factor needs (new recovery codes, renaming or removing a factor). A session of the
 * password alone (a stolen password) cannot take a factor away or make it its own.
 */
export async function recentMfaCaller(deps: SessionCheckDependencies & { audit: Audit }, accessToken: string | undefined, now: Date): Promise<AuthenticatedSession> {
  const caller = await recentCaller(deps, accessToken, now);
  if (!usedFactor(caller.session)) refuseWithoutFactor(deps, caller);
  return caller;
}

/** The session's login used a second factor (`mfa` in its `amr`): a password alone never adds it, a refresh never does. */
export function usedFactor(session: Pick<StoredSession, 'amr'>): boolean {
  return session.amr?.includes('mfa') === true;
}

/**
 * Only a factor changes factors: on an account that has one, a caller whose login did not use
 * one is refused (a password-only session, e.g. a stolen password's, cannot add a factor of its
 * own). The account's first factor is the exception (trust on first use; its mail carries the
 * undo). A read decides only the answer: the write that adds the first factor is conditional on
 * the account still having none (MfaStore `putFirstPending`, `activate` with codes, PasskeyStore
 * `add` with codes), so a factor enrolled concurrently is not bypassed.
 */
export function requireFactorLoginOnceEnrolled(deps: { audit: Audit }, caller: AuthenticatedSession, factors: StoredMfa | undefined): void {
  if (hasActiveFactor(factors) && !usedFactor(caller.session)) refuseWithoutFactor(deps, caller);
}

function refuseWithoutFactor(deps: { audit: Audit }, caller: AuthenticatedSession): never {
  deps.audit({ type: 'auth.mfa_failed', reason: 'mfa_login_required', userId: caller.userId });
  throw new ReauthenticationRequiredError();
}
