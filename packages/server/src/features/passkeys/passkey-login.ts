import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { base64url } from 'jose';
import type { PasskeyFailureReason } from '../../accounts/audit-events.js';
import { enforceRateLimits } from '../../accounts/enforce-rate-limits.js';
import { EmailNotVerifiedError, InvalidPasskeyError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { translateErrors } from '../../accounts/translate-errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { StorageUnavailableError } from '../../storage/errors.js';
import type { LoginState, LoginTarget } from '../../storage/login-guard-store.js';
import { answerLogin, enforceLimits, startLoginSession, type LoginRequest, type LoginResponse } from '../login/login.js';
import { deviceFailureUpdate, failureUpdate } from '../login/login-guard.js';
import { sendVerification } from '../recovery/send-verification.js';
import { knownDevice, type KnownDevice } from '../sessions/known-device.js';
import { answeredChallenge, challengeHash } from './challenge.js';
import { configuredRelyingParty } from './configured.js';
import type { PasskeyLoginDependencies } from './dependencies.js';
import { PASSKEY_LIMITS } from './settings.js';
import { webAuthnUserHandle } from './webauthn-user.js';

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
 * `amr` is the passkey's kind, `user` and `mfa`. Any failure is `invalid_passkey`, counted as a
 * failed login of the source, and of the account once the credential named one.
 */
export async function loginWithPasskey(deps: PasskeyLoginDependencies, request: PasskeyLoginRequest): Promise<LoginResponse> {
  return translateErrors(async () => {
    const webauthn = configuredRelyingParty(deps);
    const now = deps.now?.() ?? new Date();
    const nowSeconds = epochSeconds(now);
    const sourceKey = sourceKeyOf(request.sourceIp);
    const { response } = request;
    const lookup = await deps.passkeys.readLookup(response.id);
    if (lookup === undefined) {
      await deps.loginGuard.recordSourceFailure(sourceKey, now);
      return refuse(deps, 'unknown_credential');
    }
    const target: LoginTarget = { email: lookup.email, accountKey: lookup.accountKey, sourceKey, now };
    const read = await deps.loginGuard.read(target);
    const device = knownDevice(read.sessions, read.user?.userId, request.deviceTokens, nowSeconds);
    const state = device === undefined ? await deps.loginGuard.settle(target, read) : read;
    enforceLimits(deps, state, now, lookup.accountKey, device);
    const { user } = state;
    const passkey = state.factors?.passkeys.get(response.id);
    // A stale lookup (the passkey removed, the account gone or another's): no account resolved.
    if (user === undefined || user.userId !== lookup.userId || state.factors?.userId !== lookup.userId || passkey === undefined) {
      await deps.loginGuard.recordSourceFailure(sourceKey, now);
      return refuse(deps, 'unknown_credential');
    }
    const failed = async (reason: PasskeyFailureReason): Promise<never> => {
      await countFailure(deps, target, state, device, nowSeconds);
      return refuse(deps, reason, user.userId);
    };
    const handle = response.response.userHandle;
    if (handle !== undefined && handle !== base64url.encode(webAuthnUserHandle(user.userId))) return failed('not_verified');
    const challenge = answeredChallenge(response.response.clientDataJSON);
    const stored = challenge === undefined ? undefined : await deps.passkeys.consumeChallenge(challengeHash(challenge));
    if (challenge === undefined || stored === undefined || stored.purpose !== 'login') return failed('unknown_challenge');
    if (stored.expiresAt <= nowSeconds) return failed('expired_challenge');
    const { checkPasskeyAssertion } = await import('./check-passkey-assertion.js');
    const verdict = await checkPasskeyAssertion(
      { passkeys: deps.passkeys, webauthn },
      { accountKey: lookup.accountKey, passkey, response, expectedChallenge: challenge, requireUserVerification: true, now },
    );
    if (!verdict.ok) return failed(verdict.reason);
    // As at POST /login: only after the credential verified, so it tells a prober nothing.
    if (deps.recovery.requireVerifiedEmail && user.emailVerified !== true) {
      deps.audit({ type: 'auth.login_unverified', userId: user.userId });
      await sendVerification(deps, { email: user.email, accountKey: lookup.accountKey, userId: user.userId });
      throw new EmailNotVerifiedError();
    }
    // RFC 8176: the passkey's kind, `user` (user verification: a PIN or biometric), `mfa` (something held and something known or been).
    const session = await startLoginSession(deps, request, target, state, user, user.passwordHash, [verdict.amr, 'user', 'mfa']);
    if (session === 'overtaken') throw new TemporarilyUnavailableError(1);
    await Promise.all([deps.loginGuard.clearFailures(target, state), ...(session.knownDevice ? [] : [deps.loginGuard.recordSuccess(target, state)])]).catch(
      (error: unknown) => {
        if (!(error instanceof StorageUnavailableError)) throw error;
      },
    );
    deps.audit({ type: 'auth.passkey_login_succeeded', userId: user.userId });
    deps.audit({ type: 'auth.login_succeeded', userId: user.userId });
    return await answerLogin(deps, user, session);
  });
}

/** A failed login of the account (and source), or of its known device alone, as at POST /login. */
async function countFailure(deps: PasskeyLoginDependencies, target: LoginTarget, state: LoginState, device: KnownDevice | undefined, nowSeconds: number): Promise<void> {
  await (device === undefined
    ? deps.loginGuard.recordFailure(target, state, failureUpdate(state, deps.rateLimits, nowSeconds))
    : deps.sessions.recordDeviceFailure(target.accountKey, device.device.deviceId, deviceFailureUpdate(device.device, deps.rateLimits, nowSeconds)));
}

function refuse(deps: PasskeyLoginDependencies, reason: PasskeyFailureReason, userId?: string): never {
  deps.audit({ type: 'auth.passkey_login_failed', reason, ...(userId !== undefined && { userId }) });
  throw new InvalidPasskeyError();
}
