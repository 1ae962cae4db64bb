import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { base64url } from 'jose';
import type { PasskeyFailureReason } from '../../accounts/audit-events.js';
import { enforceRateLimits } from '../../accounts/enforce-rate-limits.js';
import { InvalidPasskeyError } from '../../accounts/errors.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { translateErrors } from '../../accounts/translate-errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { LoginTarget } from '../../storage/login-guard-store.js';
import { decideLogin } from '../login/finish-login.js';
import type { LoginClient, LoginResult, LoginVerdict } from '../login/login-verdict.js';
import { releaseLoginAttempt, reserveLoginAttempt, reserveSourceAttempt } from '../login/login-attempt.js';
import { noticeFactorFailure, reserveFactorAttempt } from '../mfa/factor-failures.js';
import { mailMfaChangeTo } from '../mfa/mail-mfa-change.js';
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

export interface PasskeyLoginRequest extends LoginClient {
  response: AuthenticationResponseJSON;
}

/**
 * POST /passkey/login: a login without a password. The credential names its account (its
 * lookup item, which the account's factors must still hold); then the login's limits as for a
 * password (a locked account or source is refused before anything is checked), the challenge
 * (one of ours, for a login, unexpired: spent by a conditional delete), the assertion with user
 * verification (src/webauthn/check-passkey-assertion.ts): the verdict, whose `amr` is the
 * passkey's kind, `user` and `mfa`, for the login's shared step (features/login/finish-login.ts:
 * the account's gates, the session). Every attempt is counted before anything is checked: against
 * the source, then, once the credential names an account, as a login of the account (or its
 * known device) and against the passkeys' count over their life. Any failure is
 * `invalid_passkey`. Decided once: the challenge is spent.
 */
export async function loginWithPasskey(deps: PasskeyLoginDependencies, request: PasskeyLoginRequest): Promise<LoginResult> {
  return translateErrors(() => decideLogin(deps, request, () => passkeyVerdict(deps, request), 1));
}

/** The passkey strategy: the source's attempt, the credential's account and its attempt, the challenge, the assertion. */
async function passkeyVerdict(deps: PasskeyLoginDependencies, request: PasskeyLoginRequest): Promise<LoginVerdict> {
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
  const assertion = await checkPasskeyAssertion(
    { passkeys: deps.passkeys, webauthn },
    { accountKey: lookup.accountKey, passkey, response, expectedChallenge: challenge, requireUserVerification: true, now },
  );
  if (!assertion.ok) return failed(assertion.reason);
  // RFC 8176: the passkey's kind, `user` (user verification: a PIN or biometric), `mfa` (something held and something known or been).
  return {
    user,
    target,
    state,
    held,
    verifiedHash: user.passwordHash,
    amr: [assertion.amr, 'user', 'mfa'],
    succeeded: [{ type: 'auth.passkey_login_succeeded', userId: user.userId }],
  };
}

function refuse(deps: PasskeyLoginDependencies, reason: PasskeyFailureReason, userId?: string): never {
  deps.audit({ type: 'auth.passkey_login_failed', reason, ...(userId !== undefined && { userId }) });
  throw new InvalidPasskeyError();
}
