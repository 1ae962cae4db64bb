import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { base64url } from 'jose';
import type { PasskeyFailureReason } from '../../accounts/audit-events.js';
import { enforceRateLimits } from '../../accounts/enforce-rate-limits.js';
import { EmailNotVerifiedError, InvalidPasskeyError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { translateErrors } from '../../accounts/translate-errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { LoginTarget } from '../../storage/login-guard-store.js';
import { answerLogin, startLoginSession, type LoginRequest, type LoginResponse } from '../login/login.js';
import { releaseLoginAttempt, reserveLoginAttempt, reserveSourceAttempt } from '../login/login-attempt.js';
import { noticeFactorFailure, reserveFactorAttempt } from '../mfa/factor-failures.js';
import { mailMfaChangeTo } from '../mfa/mail-mfa-change.js';
import { sendVerification } from '../recovery/send-verification.js';
import { knownDevice } from '../sessions/known-device.js';
import { answeredChallenge, challengeHash } from '../../webauthn/challenge.js';
import { configuredRelyingParty } from './configured.js';
import type { PasskeyLoginDependencies } from './dependencies.js';
import { PASSKEY_LIMITS } from './settings.js';
import { webAuthnUserHandle } from '../../webauthn/webauthn-user.js';

/**
 * POST /passkey/login/options: request options for a discoverable credential (no
 * allowCredentials: the authenticator offers the user's passkeys), user verification required.
 * Unauthenticated and it writes a challenge, so it is counted per source like registration.
 */
export async function passkeyLoginOptions(deps: PasskeyLoginDependencies, input: { sourceIp?: string }): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return translateErrors(async () => {
    const webauthn = configuredRelyingParty(deps);
    await enforceRateLimits(deps, { action: 'passkey_options', sourceIp: input.sourceIp });
    const now = deps.now?.() ?? new Date();
    const { generateAuthenticationOptions } = await import('@simplewebauthn/server');
    const options = await generateAuthenticationOptions({ rpID: webauthn.rpId, userVerification: 'required', timeout: PASSKEY_LIMITS.challengeSeconds * 1000 });
    await deps.passkeys.putChallenge(challengeHash(options.challenge), { purpose: 'login', expiresAt: epochSeconds(now) + PASSKEY_LIMITS.challengeSeconds });
    return options;
  });
}

export interface PasskeyLoginRequest extends Pick<LoginRequest, 'sourceIp' | 'userAgent' | 'deviceTokens'> {
  response: AuthenticationResponseJSON;
}

/**
 * POST /passkey/login: a login without a password. The credential names its account (its
 * lookup item, which the account's factors must still hold); then the login's limits as for a
 * password (a locked account or source is refused before anything is checked), the challenge
 * (one of ours, for a login, unexpired: spent by a conditional delete), the assertion with user
 * verification (check-passkey-assertion.ts), the verified email where required; a session whose
 * `amr` is the passkey's kind, `user` and `mfa`. Every attempt is counted before anything is
 * checked: against the source, then, once the credential names an account, as a login of the
 * account (or its known device) and against the passkeys' count over their life. Any failure is
 * `invalid_passkey`.
 */
export async function loginWithPasskey(deps: PasskeyLoginDependencies, request: PasskeyLoginRequest): Promise<LoginResponse> {
  return translateErrors(async () => {
    const webauthn = configuredRelyingParty(deps);
    const now = deps.now?.() ?? new Date();
    const nowSeconds = epochSeconds(now);
    const sourceKey = sourceKeyOf(request.sourceIp);
    const { response } = request;
    // Counted before the credential is looked up: an unknown one is the source's failure.
    const source = await reserveSourceAttempt(deps, sourceKey, now);
    const lookup = await deps.passkeys.readLookup(response.id);
    if (lookup === undefined) return refuse(deps, 'unknown_credential');
    const target: LoginTarget = { email: lookup.email, accountKey: lookup.accountKey, sourceKey, now };
    const state = await deps.loginGuard.read(target);
    const { user } = state;
    const passkey = state.factors?.passkeys.get(response.id);
    // A stale lookup (the passkey removed, the account gone or another's): no account resolved.
    if (user === undefined || user.userId !== lookup.userId || state.factors?.userId !== lookup.userId || passkey === undefined) return refuse(deps, 'unknown_credential');
    // The account's counters (its known device's, or the email's), and the passkeys' count over
    // their life (factor-failures.ts), before the challenge or the signature is looked at.
    const device = knownDevice(state.sessions, user.userId, request.deviceTokens, nowSeconds);
    const held = await reserveLoginAttempt(deps, target, state, device, source);
    const count = await reserveFactorAttempt(deps, lookup.accountKey, 'webauthn').catch(async (error: unknown) => {
      await releaseLoginAttempt(deps, target, held, 'right_secret');
      throw error;
    });
    const failed = async (reason: PasskeyFailureReason): Promise<never> => {
      await noticeFactorFailure(count, (change) => mailMfaChangeTo(deps, user.email, change));
      return refuse(deps, reason, user.userId);
    };
    const handle = response.response.userHandle;
    if (handle !== undefined && handle !== base64url.encode(webAuthnUserHandle(user.userId))) return failed('not_verified');
    const challenge = answeredChallenge(response.response.clientDataJSON);
    const stored = challenge === undefined ? undefined : await deps.passkeys.consumeChallenge(challengeHash(challenge));
    if (challenge === undefined || stored === undefined || stored.purpose !== 'login') return failed('unknown_challenge');
    if (stored.expiresAt <= nowSeconds) return failed('expired_challenge');
    const { checkPasskeyAssertion } = await import('../../webauthn/check-passkey-assertion.js');
    const verdict = await checkPasskeyAssertion(
      { passkeys: deps.passkeys, webauthn },
      { accountKey: lookup.accountKey, passkey, response, expectedChallenge: challenge, requireUserVerification: true, now },
    );
    if (!verdict.ok) return failed(verdict.reason);
    // As at POST /login: only after the credential verified, so it tells a prober nothing.
    if (deps.recovery.requireVerifiedEmail && user.emailVerified !== true) {
      deps.audit({ type: 'auth.login_unverified', userId: user.userId });
      await releaseLoginAttempt(deps, target, held, 'right_secret');
      await sendVerification(deps, { email: user.email, accountKey: lookup.accountKey, userId: user.userId });
      throw new EmailNotVerifiedError();
    }
    // RFC 8176: the passkey's kind, `user` (user verification: a PIN or biometric), `mfa` (something held and something known or been).
    const session = await startLoginSession(deps, request, target, state, user, user.passwordHash, [verdict.amr, 'user', 'mfa']);
    if (session === 'overtaken') {
      await releaseLoginAttempt(deps, target, held, 'right_secret');
      throw new TemporarilyUnavailableError(1);
    }
    await releaseLoginAttempt(deps, target, held, 'success');
    deps.audit({ type: 'auth.passkey_login_succeeded', userId: user.userId });
    deps.audit({ type: 'auth.login_succeeded', userId: user.userId });
    return await answerLogin(deps, user, session);
  });
}

function refuse(deps: PasskeyLoginDependencies, reason: PasskeyFailureReason, userId?: string): never {
  deps.audit({ type: 'auth.passkey_login_failed', reason, ...(userId !== undefined && { userId }) });
  throw new InvalidPasskeyError();
}
