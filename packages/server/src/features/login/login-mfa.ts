import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { InvalidMfaCodeError, InvalidMfaTokenError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { translateErrors } from '../../accounts/translate-errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { StorageUnavailableError } from '../../storage/errors.js';
import type { LoginTarget } from '../../storage/login-guard-store.js';
import type { StoredMfa, StoredMfaLogin } from '../../storage/mfa-store.js';
import { checkSecondFactor } from '../mfa/check-second-factor.js';
import { mailMfaChangeTo } from '../mfa/mail-mfa-change.js';
import { MFA_LIMITS } from '../mfa/settings.js';
import { knownDevice } from '../sessions/known-device.js';
import { PASSWORD_AND_OTP_AMR } from '../sessions/start-session.js';
import type { MfaLoginDependencies } from './dependencies.js';
import type { LoginResponse } from './login.js';
import { answerLogin, enforceLimits, startLoginSession } from './login.js';
import { deviceFailureUpdate, failureUpdate } from './login-guard.js';
import { mfaTokenHash, passwordMark } from './mfa-token.js';

/** The second factor presented: a code, or (`webauthn`) a passkey's assertion of the options `mfa_required` carried. */
export type SecondFactor = { method: 'totp' | 'recovery_code'; code: string } | { method: 'webauthn'; response: AuthenticationResponseJSON };

export type MfaLoginRequest = SecondFactor & {
  /** The password step's `mfaToken` (its `401 mfa_required` answer). */
  mfaToken: string;
  sourceIp?: string;
  userAgent?: string;
  deviceTokens?: readonly string[];
};

/**
 * POST /login/mfa: finishes a login the password step began. The MFA token must be live (5
 * minutes), unspent, and of the account's password as it is now; the login's limits apply as at
 * the password step (a locked account or source is refused before any code is checked), and a
 * wrong code counts twice: against the token (dead after 5) and as a failed login of the
 * account (per-account and per-source limits, or its known device's); a passkey's assertion
 * that does not verify counts as a wrong code. A right code spends the token (conditional
 * delete), starts the session with `amr` pwd+otp+mfa (pwd+hwk|swk+mfa for a passkey), clears the
 * failures: the same answer as a good POST /login.
 */
export async function loginWithSecondFactor(deps: MfaLoginDependencies, request: MfaLoginRequest): Promise<LoginResponse> {
  return translateErrors(async () => {
    const hash = mfaTokenHash(request.mfaToken);
    const pending = hash === undefined ? undefined : await deps.mfa.readLogin(hash);
    const now = deps.now?.() ?? new Date();
    if (hash === undefined || pending === undefined) return refuseToken(deps, 'unknown_token');
    if (pending.expiresAt <= epochSeconds(now)) {
      await deps.mfa.consumeLogin(hash);
      return refuseToken(deps, 'expired_token', pending.userId);
    }

    const target: LoginTarget = { email: pending.email, accountKey: pending.accountKey, sourceKey: sourceKeyOf(request.sourceIp), now };
    const read = await deps.loginGuard.read(target);
    const device = knownDevice(read.sessions, read.user?.userId, request.deviceTokens, epochSeconds(now));
    const state = device === undefined ? await deps.loginGuard.settle(target, read) : read;
    enforceLimits(deps, state, now, pending.accountKey, device);
    const user = state.user;
    // The password changed (or the account went) since the password step: that step is void.
    if (user === undefined || user.userId !== pending.userId || passwordMark(user.passwordHash) !== pending.passwordMark) {
      await deps.mfa.consumeLogin(hash);
      return refuseToken(deps, 'stale_token', pending.userId);
    }
    const { factors } = state;
    const amr = factors === undefined ? undefined : await secondFactorAmr(deps, pending, factors, request, now);
    if (amr === undefined) {
      await Promise.all([
        deps.mfa.recordWrongCode(hash, MFA_LIMITS.wrongCodesPerToken),
        device === undefined
          ? deps.loginGuard.recordFailure(target, state, failureUpdate(state, deps.rateLimits, epochSeconds(now)))
          : deps.sessions.recordDeviceFailure(pending.accountKey, device.device.deviceId, deviceFailureUpdate(device.device, deps.rateLimits, epochSeconds(now))),
      ]);
      deps.audit({ type: 'auth.mfa_failed', reason: 'wrong_code', userId: pending.userId, method: request.method });
      throw new InvalidMfaCodeError();
    }
    // Single use: of two requests with one token (each with a right code) one starts a session.
    if (!(await deps.mfa.consumeLogin(hash))) return refuseToken(deps, 'unknown_token', pending.userId);
    const session = await startLoginSession(deps, request, target, state, user, user.passwordHash, amr);
    if (session === 'overtaken') throw new TemporarilyUnavailableError(1);
    await Promise.all([deps.loginGuard.clearFailures(target, state), ...(session.knownDevice ? [] : [deps.loginGuard.recordSuccess(target, state)])]).catch(
      (error: unknown) => {
        if (!(error instanceof StorageUnavailableError)) throw error;
      },
    );
    deps.audit({ type: 'auth.mfa_succeeded', userId: user.userId, method: request.method });
    deps.audit({ type: 'auth.login_succeeded', userId: user.userId });
    if (request.method === 'recovery_code') {
      deps.audit({ type: 'auth.recovery_code_used', userId: user.userId });
      await mailMfaChangeTo(deps, user.email, 'recovery_code_used');
    }
    return await answerLogin(deps, user, session);
  });
}

/** The session's `amr` when the factor is right (and now spent); undefined when it is wrong, replayed or used. */
async function secondFactorAmr(deps: MfaLoginDependencies, pending: StoredMfaLogin, factors: StoredMfa, factor: SecondFactor, now: Date): Promise<readonly string[] | undefined> {
  const { accountKey } = pending;
  if (factor.method !== 'webauthn') {
    return (await checkSecondFactor(deps, { accountKey, factors, method: factor.method, code: factor.code, now })) ? PASSWORD_AND_OTP_AMR : undefined;
  }
  const passkey = factors.passkeys.get(factor.response.id);
  // Passkeys off here, no challenge in the token (none when it was made), or not the account's passkey: wrong.
  if (deps.webauthn === undefined || pending.webauthnChallenge === undefined || passkey === undefined) return undefined;
  // Imported here: a password login's cold start does not parse @simplewebauthn (login.ts `mfaChallenge`).
  const { checkPasskeyAssertion } = await import('../passkeys/check-passkey-assertion.js');
  const verdict = await checkPasskeyAssertion(
    { passkeys: deps.passkeys, webauthn: deps.webauthn },
    { accountKey, passkey, response: factor.response, expectedChallenge: pending.webauthnChallenge, requireUserVerification: false, now },
  );
  return verdict.ok ? ['pwd', verdict.amr, 'mfa'] : undefined;
}

function refuseToken(deps: MfaLoginDependencies, reason: 'unknown_token' | 'expired_token' | 'stale_token', userId?: StoredMfaLogin['userId']): never {
  deps.audit({ type: 'auth.mfa_failed', reason, ...(userId !== undefined && { userId }) });
  throw new InvalidMfaTokenError();
}
