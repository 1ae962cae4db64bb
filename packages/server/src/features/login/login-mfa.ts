import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { FactorSuspendedError, InvalidMfaCodeError, InvalidMfaTokenError } from '../../accounts/errors.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { translateErrors } from '../../accounts/translate-errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { LoginTarget } from '../../storage/login-guard-store.js';
import type { StoredMfa, StoredMfaLogin } from '../../storage/mfa-store.js';
import type { MfaChange } from '../../mail/account-mail.js';
import { checkSecondFactor } from '../mfa/check-second-factor.js';
import { noticeFactorFailure, reserveFactorAttempt } from '../mfa/factor-failures.js';
import { mailMfaChangeTo } from '../mfa/mail-mfa-change.js';
import { MFA_LIMITS } from '../mfa/settings.js';
import { knownDevice } from '../sessions/known-device.js';
import { PASSWORD_AND_OTP_AMR } from '../sessions/start-session.js';
import type { MfaLoginDependencies } from './dependencies.js';
import { decideLogin } from './finish-login.js';
import type { LoginClient, LoginResult, LoginVerdict } from './login-verdict.js';
import { releaseLoginAttempt, reserveLoginAttempt } from './login-attempt.js';
import { mfaTokenHash, passwordMark } from './mfa-token.js';

/** The second factor presented: a code, or (`webauthn`) a passkey's assertion of the options `mfa_required` carried. */
export type SecondFactor = { method: 'totp' | 'recovery_code'; code: string } | { method: 'webauthn'; response: AuthenticationResponseJSON };

export type MfaLoginRequest = SecondFactor &
  LoginClient & {
    /** The password step's `mfaToken` (its `401 mfa_required` answer). */
    mfaToken: string;
  };

/**
 * POST /login/mfa: finishes a login the password step began. The MFA token must be live (5
 * minutes), unspent, and of the account's password as it is now. Every code is counted before it
 * is checked, three ways: as a login of the account (its limits as at the password step, or its
 * known device's), against the token (dead after 5) and against its kind of factor over the
 * factor's life (100, then suspended: factor-failures.ts); a passkey's assertion that does not
 * verify counts as a wrong code. A right code spends the token (conditional delete): the
 * verdict, `amr` pwd+otp+mfa (pwd+hwk|swk+mfa for a passkey), for the shared step
 * (finish-login.ts), which answers as for a good POST /login. Decided once: the token is spent.
 */
export async function loginWithSecondFactor(deps: MfaLoginDependencies, request: MfaLoginRequest): Promise<LoginResult> {
  return translateErrors(() => decideLogin(deps, request, () => secondFactorVerdict(deps, request), 1));
}

/** The second-factor strategy: the token, the attempt reserved three ways, the factor checked, the token spent. */
async function secondFactorVerdict(deps: MfaLoginDependencies, request: MfaLoginRequest): Promise<LoginVerdict> {
  const hash = mfaTokenHash(request.mfaToken);
  const pending = hash === undefined ? undefined : await deps.mfa.readLogin(hash);
  const now = deps.now?.() ?? new Date();
  if (hash === undefined || pending === undefined) return refuseToken(deps, 'unknown_token');
  if (pending.expiresAt <= epochSeconds(now)) {
    await deps.mfa.consumeLogin(hash);
    return refuseToken(deps, 'expired_token', pending.userId);
  }

  const target: LoginTarget = { email: pending.email, accountKey: pending.accountKey, sourceKey: sourceKeyOf(request.sourceIp), now };
  const state = await deps.loginGuard.read(target);
  const { user, factors } = state;
  // The password changed (or the account or its factors went) since the password step: that step is void.
  if (user === undefined || factors === undefined || user.userId !== pending.userId || passwordMark(user.passwordHash) !== pending.passwordMark) {
    await deps.mfa.consumeLogin(hash);
    return refuseToken(deps, 'stale_token', pending.userId);
  }
  // Count before checking, on every counter the code is held to: the login's (LIMITS.md), the
  // token's (MFA_LIMITS.wrongCodesPerToken) and the factor kind's over its life (factor-failures.ts).
  const device = knownDevice(state.sessions, user.userId, request.deviceTokens, epochSeconds(now));
  const held = await reserveLoginAttempt(deps, target, state, device);
  const tokenCount = await deps.mfa.reserveTokenAttempt(hash, MFA_LIMITS.wrongCodesPerToken);
  if (tokenCount === undefined) {
    await releaseLoginAttempt(deps, target, held, 'right_secret');
    return refuseToken(deps, 'unknown_token', pending.userId);
  }
  const tell = (change: MfaChange) => mailMfaChangeTo(deps, user.email, change);
  const amr = await secondFactorAmr(deps, pending, factors, request, now, tell).catch(async (error: unknown) => {
    // A suspended factor was not checked: the attempt is no failure of the login.
    if (error instanceof FactorSuspendedError) await releaseLoginAttempt(deps, target, held, 'right_secret');
    throw error;
  });
  if (amr === undefined) {
    // The token's last code: it dies with it.
    if (tokenCount >= MFA_LIMITS.wrongCodesPerToken) await deps.mfa.consumeLogin(hash);
    deps.audit({ type: 'auth.mfa_failed', reason: 'wrong_code', userId: pending.userId, method: request.method });
    throw new InvalidMfaCodeError();
  }
  // Single use: of two requests with one token (each with a right code) one starts a session.
  if (!(await deps.mfa.consumeLogin(hash))) return refuseToken(deps, 'unknown_token', pending.userId);
  return {
    user,
    target,
    state,
    held,
    verifiedHash: user.passwordHash,
    amr,
    succeeded: [{ type: 'auth.mfa_succeeded', userId: user.userId, method: request.method }],
    afterSuccess: async () => {
      if (request.method !== 'recovery_code') return;
      deps.audit({ type: 'auth.recovery_code_used', userId: user.userId });
      await mailMfaChangeTo(deps, user.email, 'recovery_code_used');
    },
  };
}

/**
 * The session's `amr` when the factor is right (and now spent); undefined when it is wrong,
 * replayed or used. Either way counted first on its kind (FactorSuspendedError past the bound).
 */
async function secondFactorAmr(
  deps: MfaLoginDependencies,
  pending: StoredMfaLogin,
  factors: StoredMfa,
  factor: SecondFactor,
  now: Date,
  tell: (change: MfaChange) => Promise<void>,
): Promise<readonly string[] | undefined> {
  const { accountKey } = pending;
  if (factor.method !== 'webauthn') {
    return (await checkSecondFactor(deps, { accountKey, factors, method: factor.method, code: factor.code, now, tell })) ? PASSWORD_AND_OTP_AMR : undefined;
  }
  const count = await reserveFactorAttempt(deps, accountKey, 'webauthn');
  const amr = await passkeyAmr(deps, pending, factors, factor.response, now);
  if (amr === undefined) await noticeFactorFailure(count, tell);
  return amr;
}

async function passkeyAmr(deps: MfaLoginDependencies, pending: StoredMfaLogin, factors: StoredMfa, response: AuthenticationResponseJSON, now: Date): Promise<readonly string[] | undefined> {
  const passkey = factors.passkeys.get(response.id);
  // Passkeys off here, no challenge in the token (none when it was made), or not the account's passkey: wrong.
  if (deps.webauthn === undefined || pending.webauthnChallenge === undefined || passkey === undefined) return undefined;
  // Imported here: a password login's cold start does not parse @simplewebauthn (login.ts `mfaChallenge`).
  const { checkPasskeyAssertion } = await import('../../webauthn/check-passkey-assertion.js');
  const verdict = await checkPasskeyAssertion(
    { passkeys: deps.passkeys, webauthn: deps.webauthn },
    { accountKey: pending.accountKey, passkey, response, expectedChallenge: pending.webauthnChallenge, requireUserVerification: false, now },
  );
  return verdict.ok ? ['pwd', verdict.amr, 'mfa'] : undefined;
}

function refuseToken(deps: MfaLoginDependencies, reason: 'unknown_token' | 'expired_token' | 'stale_token', userId?: StoredMfaLogin['userId']): never {
  deps.audit({ type: 'auth.mfa_failed', reason, ...(userId !== undefined && { userId }) });
  throw new InvalidMfaTokenError();
}
