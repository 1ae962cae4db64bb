import type { Audit, LimitScope } from '../../accounts/audit-events.js';
import { RateLimitedError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { isRefused, type WaitReserved } from '../../storage/attempt-counters.js';
import { StorageUnavailableError } from '../../storage/errors.js';
import type { GiveBack, LoginGuardStore, LoginReservation, LoginState, LoginTarget } from '../../storage/login-guard-store.js';
import type { SessionStore } from '../../storage/session-store.js';
import type { KnownDevice } from '../sessions/known-device.js';
import { limitReached, reservationLimits } from './login-guard.js';
import type { RateLimits } from './settings.js';

/** What counting a login's attempts takes. */
export interface LoginAttemptDependencies {
  loginGuard: Pick<LoginGuardStore, 'reserve' | 'giveBack' | 'clearFailures'>;
  sessions: Pick<SessionStore, 'reserveDeviceAttempt' | 'giveBackDeviceAttempt'>;
  rateLimits: RateLimits;
  audit: Audit;
}

/** The attempt a login holds while its secret is checked: its known device's, or an unknown client's counters. */
export type HeldAttempt = { device: KnownDevice; reserved: WaitReserved; state: LoginState } | { reservation: LoginReservation };

/**
 * Count before checking (LIMITS.md): the limits as read refuse a limited login with no write;
 * then this attempt is reserved on every counter it is held to by a conditional write (its known
 * device's alone, or the email's, the email's from this source and the source's), so however
 * many arrive at once no more secrets are checked than the limits allow. Refused: 429 with
 * Retry-After, before any hash, code or signature. A failure then needs no write of its own.
 */
export async function reserveLoginAttempt(
  deps: LoginAttemptDependencies,
  target: LoginTarget,
  state: LoginState,
  device: KnownDevice | undefined,
  heldSource?: { key: string },
): Promise<HeldAttempt> {
  const nowSeconds = epochSeconds(target.now);
  const limited = limitReached(state, deps.rateLimits, nowSeconds, device?.device);
  if (limited !== undefined) refuse(deps, target.accountKey, limited.scope, limited.retryAfterSeconds);
  const limits = reservationLimits(deps.rateLimits, nowSeconds);
  if (device !== undefined) {
    // A device waits as one source on the account does.
    const reserved = await deps.sessions.reserveDeviceAttempt(target.accountKey, device.device, { nowSeconds, free: limits.freeFailures, blockedUntilAfter: limits.blockedUntilAfter });
    if (isRefused(reserved)) return refuse(deps, target.accountKey, 'device', reserved.refusedUntil - nowSeconds);
    return { device, reserved, state };
  }
  const reservation = await deps.loginGuard.reserve(target, state, limits, heldSource);
  if ('refused' in reservation) return refuse(deps, target.accountKey, reservation.refused, reservation.until - nowSeconds);
  return { reservation };
}

/**
 * An attempt of a source on no account yet (a passkey login, before its credential names one),
 * reserved in the source's window: 429 when the window is full. Undefined when the host knows no
 * source. Given to reserveLoginAttempt once an account is known, so it is not counted twice.
 */
export async function reserveSourceAttempt(
  deps: { loginGuard: Pick<LoginGuardStore, 'reserveSource'>; rateLimits: RateLimits; audit: Audit },
  sourceKey: string | undefined,
  now: Date,
): Promise<{ key: string } | undefined> {
  const source = await deps.loginGuard.reserveSource(sourceKey, now, deps.rateLimits.perSource);
  if (source !== undefined && 'refused' in source) return refuse(deps, undefined, 'source', source.until - epochSeconds(now));
  return source;
}

/**
 * The attempt given back (GiveBack in login-guard-store.ts says how much): after a success, a
 * right secret that starts no session, or a right password whose second factor is still due. A
 * known device's success ends the email's failures as any success does (the session's write
 * clears the device's own count).
 * Best effort: a give-back lost to a storage fault only leaves one failure too many counted.
 */
export async function releaseLoginAttempt(deps: LoginAttemptDependencies, target: LoginTarget, held: HeldAttempt, as: GiveBack): Promise<void> {
  const release =
    'reservation' in held
      ? deps.loginGuard.giveBack(held.reservation, as)
      : as === 'right_secret'
        ? deps.sessions.giveBackDeviceAttempt(target.accountKey, held.device.device.deviceId, held.reserved)
        : as === 'success'
          ? deps.loginGuard.clearFailures(target, held.state)
          : undefined;
  await release?.catch((error: unknown) => {
    if (!(error instanceof StorageUnavailableError)) throw error;
  });
}

function refuse(deps: Pick<LoginAttemptDependencies, 'audit'>, emailFingerprint: string | undefined, scope: LimitScope, retryAfterSeconds: number): never {
  deps.audit({ type: 'auth.rate_limited', scope, ...(emailFingerprint !== undefined && { emailFingerprint }) });
  throw new RateLimitedError(Math.max(1, retryAfterSeconds));
}
