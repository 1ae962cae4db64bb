import { InvalidMfaCodeError, MfaAlreadyEnabledError, MfaNotEnabledError, RateLimitedError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { hasActiveFactor, type StoredMfa } from '../../storage/mfa-store.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import { checkSecondFactor } from './check-second-factor.js';
import type { MfaDependencies } from './dependencies.js';
import { endPasswordOnlySessions } from './end-password-only-sessions.js';
import { mailFactorAdded } from './mail-factor-added.js';
import { mailMfaChange } from './mail-mfa-change.js';
import type { MfaChange } from '../../mail/account-mail.js';
import { requireFactorLoginOnceEnrolled, usedFactor } from './recent-login.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import { MFA_LIMITS } from './settings.js';
import { matchTotp, newTotpSecret, totpUri } from './totp.js';
import { base32 } from './base32.js';

/**
 * The account owner's TOTP, each step for a caller whose live session has a recent login (its
 * route's `authenticate`, recent-login.ts): enrol (a pending secret), confirm (active; the account's first factor comes
 * with recovery codes, shown once), new recovery codes, removal (with a second factor too). Once
 * the account has a factor, only a login that used one changes factors (`requireFactorLoginOnceEnrolled`).
 * The recovery codes belong to the account's factors as a whole: they stay while a passkey
 * remains (features/passkeys). The owner is mailed about each change.
 */

export interface TotpEnrolment {
  /** Base32 (RFC 4648, no padding), for typing into an app by hand. */
  secret: string;
  /** The `otpauth://totp/<issuer>:<email>?...` URI an app scans. */
  otpauthUri: string;
  /** Seconds left to confirm it. */
  expiresIn: number;
}

/** POST /mfa/totp: a new secret, pending until a code of it is confirmed. Refused while TOTP is active. */
export async function enrolTotp(deps: MfaDependencies, input: { caller: AuthenticatedSession }): Promise<TotpEnrolment> {
  const now = deps.now();
  const { caller } = input;
  const user = await deps.users.getUserById(caller.userId);
  if (user === undefined) throw new MfaNotEnabledError('the account no longer exists');
  const secret = newTotpSecret();
  const sealed = await deps.secretBox.seal(caller.accountKey, secret);
  const expiresAt = epochSeconds(now) + MFA_LIMITS.pendingSeconds;
  // A password-only login enrols only the account's first factor: the write's own condition says "none yet".
  const written = usedFactor(caller.session)
    ? await deps.mfa.putPending(caller.accountKey, caller.userId, sealed, expiresAt)
    : await deps.mfa.putFirstPending(caller.accountKey, caller.userId, sealed, expiresAt);
  if (!written) {
    requireFactorLoginOnceEnrolled(deps, caller, await deps.mfa.read(caller.accountKey));
    throw new MfaAlreadyEnabledError();
  }
  deps.audit({ type: 'auth.mfa_enrolment_started', userId: caller.userId, method: 'totp' });
  return { secret: base32(secret), otpauthUri: totpUri(deps.mfaConfig.issuer, user.email, secret), expiresIn: MFA_LIMITS.pendingSeconds };
}

/** TOTP turned on: the recovery codes when it is the account's first factor, and how many password-only sessions ended. */
export interface TotpConfirmed {
  recoveryCodes?: string[];
  sessionsEnded: number;
}

/**
 * POST /mfa/totp/confirm: a code of the pending secret makes it active; as the account's first
 * factor (no passkey), with recovery codes (shown once), else the codes it has stay. The
 * account's other password-only sessions end, and the owner's mail carries an undo link.
 */
export async function confirmTotp(deps: MfaDependencies, input: { caller: AuthenticatedSession; code: string }): Promise<TotpConfirmed> {
  const now = deps.now();
  const { caller } = input;
  const factors = await deps.mfa.read(caller.accountKey);
  requireFactorLoginOnceEnrolled(deps, caller, factors);
  if (factors?.totpSecret !== undefined) throw new MfaAlreadyEnabledError();
  if (factors?.pendingSecret === undefined || (factors.pendingExpiresAt ?? 0) <= epochSeconds(now)) throw new MfaNotEnabledError('no TOTP enrolment is waiting; start one with POST /mfa/totp');
  const step = matchTotp(await deps.secretBox.open(caller.accountKey, factors.pendingSecret), input.code.replace(/\s/g, ''), now);
  if (step === undefined) {
    deps.audit({ type: 'auth.mfa_failed', reason: 'wrong_code', userId: caller.userId, method: 'totp' });
    throw new InvalidMfaCodeError();
  }
  let codes = hasActiveFactor(factors) ? undefined : newRecoveryCodes(MFA_LIMITS.recoveryCodes);
  const added = deps.accountEvents.of('factor.added', caller.userId, { factor: 'totp' });
  let activated = await deps.mfa.activate(caller.accountKey, factors.pendingSecret, step, epochSeconds(now), codes?.map((code) => recoveryCodeHash(code)!), added);
  // With codes it needs the account to have no passkey: one registered meanwhile keeps the codes it brought,
  // and makes this a second factor, which a password-only login may not add.
  const current = !activated && codes !== undefined ? await deps.mfa.read(caller.accountKey) : undefined;
  if (current !== undefined && hasActiveFactor(current)) {
    requireFactorLoginOnceEnrolled(deps, caller, current);
    codes = undefined;
    activated = await deps.mfa.activate(caller.accountKey, factors.pendingSecret, step, epochSeconds(now), undefined, added);
  }
  // Lost to a twin confirm (or a new enrolment): this secret is not the one to activate any more.
  if (!activated) throw new MfaNotEnabledError('the enrolment changed meanwhile; start again');
  deps.audit({ type: 'auth.mfa_enabled', userId: caller.userId, method: 'totp' });
  const sessionsEnded = await endPasswordOnlySessions(deps, { accountKey: caller.accountKey, userId: caller.userId, keep: caller.session.sessionId });
  await mailFactorAdded(deps, { userId: caller.userId, accountKey: caller.accountKey, change: 'totp_enabled', factor: { kind: 'totp', sealedSecret: factors.pendingSecret }, now });
  return { ...(codes !== undefined && { recoveryCodes: codes }), sessionsEnded };
}

/**
 * POST /mfa/recovery-codes: new codes in place of all the old ones (shown once). Codes exist only
 * with a factor, so only a login that used one may replace them.
 */
export async function regenerateRecoveryCodes(deps: MfaDependencies, input: { caller: AuthenticatedSession }): Promise<{ recoveryCodes: string[] }> {
  const { caller } = input;
  if (!usedFactor(caller.session)) {
    requireFactorLoginOnceEnrolled(deps, caller, await deps.mfa.read(caller.accountKey));
    throw new MfaNotEnabledError('no second factor is active on this account');
  }
  const codes = newRecoveryCodes(MFA_LIMITS.recoveryCodes);
  if (!(await deps.mfa.replaceRecoveryCodes(caller.accountKey, codes.map((code) => recoveryCodeHash(code)!)))) throw new MfaNotEnabledError('no second factor is active on this account');
  deps.audit({ type: 'auth.recovery_codes_regenerated', userId: caller.userId });
  await mailMfaChange(deps, caller.userId, 'recovery_codes_regenerated');
  return { recoveryCodes: codes };
}

/** Removals lost to a concurrent change of the passkeys before giving up (each re-reads). */
const MAX_REMOVALS = 3;

/**
 * DELETE /mfa/totp: with a recent login that used a factor and a second factor now (a current
 * TOTP code or a recovery code), so a session taken over with the password alone cannot turn MFA off. Attempts are
 * counted per account (5 per 15 minutes, MFA_LIMITS), so a taken-over session cannot guess codes
 * here either. The recovery codes go too unless a passkey remains.
 */
export async function removeTotp(deps: MfaDependencies, input: { caller: AuthenticatedSession; method: 'totp' | 'recovery_code'; code: string }): Promise<void> {
  const now = deps.now();
  const { caller } = input;
  const attempt = await deps.counters.hit({ key: `mfa_removal#account#${caller.accountKey}`, limit: MFA_LIMITS.removalAttempts, windowSeconds: MFA_LIMITS.removalWindowSeconds, now });
  if (!attempt.allowed) {
    deps.audit({ type: 'auth.rate_limited', scope: 'account' });
    throw new RateLimitedError(attempt.retryAfterSeconds);
  }
  let factors: StoredMfa | undefined = await deps.mfa.read(caller.accountKey);
  if (factors?.totpSecret === undefined) throw new MfaNotEnabledError();
  const sealed = factors.totpSecret;
  const tell = (change: MfaChange) => mailMfaChange(deps, caller.userId, change);
  if (!(await checkSecondFactor(deps, { accountKey: caller.accountKey, factors, method: input.method, code: input.code, now, tell }))) {
    deps.audit({ type: 'auth.mfa_failed', reason: 'wrong_code', userId: caller.userId, method: input.method });
    throw new InvalidMfaCodeError();
  }
  const removed = deps.accountEvents.of('factor.removed', caller.userId, { factor: 'totp', by: 'owner' });
  for (let removal = 1; !(await deps.mfa.removeTotp(caller.accountKey, sealed, factors.passkeys.size === 0, removed)); removal++) {
    // A passkey came or went meanwhile (or TOTP changed): read again and decide again.
    factors = await deps.mfa.read(caller.accountKey);
    if (factors?.totpSecret !== sealed) throw new MfaNotEnabledError();
    if (removal >= MAX_REMOVALS) throw new TemporarilyUnavailableError(1);
  }
  deps.audit({ type: 'auth.mfa_removed', userId: caller.userId, method: 'totp', with: input.method });
  await mailMfaChange(deps, caller.userId, 'totp_removed');
}
