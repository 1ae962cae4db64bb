import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { PasskeyFailureReason } from '../../accounts/audit-events.js';
import { InvalidPasskeyError, PasskeyLimitReachedError, TemporarilyUnavailableError, UnauthenticatedError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { hasActiveFactor } from '../../storage/mfa-store.js';
import type { StoredPasskey } from '../../storage/passkey-store.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import { endPasswordOnlySessions } from '../mfa/end-password-only-sessions.js';
import { mailFactorAdded } from '../mfa/mail-factor-added.js';
import { requireFactorLoginOnceEnrolled } from '../mfa/recent-login.js';
import { newRecoveryCodes, recoveryCodeHash } from '../mfa/recovery-codes.js';
import { MFA_LIMITS } from '../mfa/settings.js';
import { answeredChallenge, challengeHash } from '../../webauthn/challenge.js';
import { configuredRelyingParty } from './configured.js';
import type { PasskeyDependencies } from './dependencies.js';
import { passkeyView, type PasskeyView } from './passkey-view.js';
import { DEFAULT_PASSKEY_NAME, PASSKEY_LIMITS } from './settings.js';
import { webAuthnUserHandle } from '../../webauthn/webauthn-user.js';

/**
 * Registration of a passkey, behind a recent login (mfa/recent-login.ts), one that used a factor
 * once the account has one: the options (a challenge stored 5 minutes, single use), then the
 * browser's answer verified and stored.
 */

// @simplewebauthn/server is imported where a ceremony needs it (as in passkey-login.ts): its
// module set-up (~55 ms of the function's cold import, infra/README.md) is then paid by a
// registration, not by every cold start of the passkeys function (list, rename, remove).

/** Algorithms offered: EdDSA, ES256, RS256 (@simplewebauthn's default list, written out so it stays what SECURITY.md says). */
const ALGORITHMS = [-8, -7, -257];

/** POST /passkeys/registration/options: creation options for navigator.credentials.create(). */
export async function passkeyRegistrationOptions(deps: PasskeyDependencies, input: { caller: AuthenticatedSession }): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const webauthn = configuredRelyingParty(deps);
  const now = deps.now();
  const { caller } = input;
  const [user, factors] = await Promise.all([deps.users.getUserById(caller.userId), deps.mfa.read(caller.accountKey)]);
  if (user === undefined) throw new UnauthenticatedError('the account no longer exists');
  requireFactorLoginOnceEnrolled(deps, caller, factors);
  const passkeys = factors?.passkeys ?? new Map<string, StoredPasskey>();
  if (passkeys.size >= PASSKEY_LIMITS.perAccount) throw new PasskeyLimitReachedError(PASSKEY_LIMITS.perAccount);
  const { generateRegistrationOptions } = await import('@simplewebauthn/server');
  const options = await generateRegistrationOptions({
    rpName: webauthn.rpName,
    rpID: webauthn.rpId,
    userID: webAuthnUserHandle(caller.userId),
    // The owner's own answer: what their authenticator lists the passkey under.
    userName: user.email,
    userDisplayName: user.email,
    timeout: PASSKEY_LIMITS.challengeSeconds * 1000,
    attestationType: 'none',
    excludeCredentials: [...passkeys].map(([id, passkey]) => ({ id, transports: passkey.transports })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  await deps.passkeys.putChallenge(challengeHash(options.challenge), {
    purpose: 'registration',
    userId: caller.userId,
    accountKey: caller.accountKey,
    expiresAt: epochSeconds(now) + PASSKEY_LIMITS.challengeSeconds,
  });
  return options;
}

export interface PasskeyRegistered {
  passkey: PasskeyView;
  /** Only when the passkey is the account's first factor: shown once. */
  recoveryCodes?: string[];
  /** The account's other password-only sessions, ended now. */
  sessionsEnded: number;
}

/** Writes lost to a concurrent change of the account's factors before the registration gives up (each re-reads). */
const MAX_ATTEMPTS = 3;

/**
 * POST /passkeys/registration: the answer to a challenge of this account's, verified (origin,
 * RP ID, user presence; attestation "none"), stored. The credential id is claimed first
 * (its lookup item, refused if registered anywhere), then added to the account's factors; a
 * failure there gives the claim back. The account's other password-only sessions end, and the
 * owner's mail carries a link that undoes it.
 */
export async function registerPasskey(
  deps: PasskeyDependencies,
  input: { caller: AuthenticatedSession; response: RegistrationResponseJSON; name?: string },
): Promise<PasskeyRegistered> {
  const webauthn = configuredRelyingParty(deps);
  const now = deps.now();
  const { caller } = input;
  const refuse = (reason: PasskeyFailureReason): never => {
    deps.audit({ type: 'auth.passkey_registration_failed', reason, userId: caller.userId });
    throw new InvalidPasskeyError();
  };
  const challenge = answeredChallenge(input.response.response.clientDataJSON);
  const stored = challenge === undefined ? undefined : await deps.passkeys.consumeChallenge(challengeHash(challenge));
  if (challenge === undefined || stored === undefined || stored.purpose !== 'registration' || stored.accountKey !== caller.accountKey) return refuse('unknown_challenge');
  if (stored.expiresAt <= epochSeconds(now)) return refuse('expired_challenge');
  const { verifyRegistrationResponse } = await import('@simplewebauthn/server');
  let info;
  try {
    const verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challenge,
      expectedOrigin: [...webauthn.origins],
      expectedRPID: webauthn.rpId,
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    });
    if (!verified.verified) return refuse('not_verified');
    info = verified.registrationInfo;
  } catch {
    return refuse('not_verified');
  }
  const credentialId = info.credential.id;
  const passkey: StoredPasskey = {
    publicKey: info.credential.publicKey,
    counter: info.credential.counter,
    transports: (input.response.response.transports ?? []).slice(0, 10),
    backupEligible: info.credentialDeviceType === 'multiDevice',
    backedUp: info.credentialBackedUp,
    name: input.name ?? DEFAULT_PASSKEY_NAME,
    createdAt: epochSeconds(now),
    aaguid: info.aaguid,
  };
  const user = await deps.users.getUserById(caller.userId);
  if (user === undefined) throw new UnauthenticatedError('the account no longer exists');
  if (!(await deps.passkeys.putLookup(credentialId, { userId: caller.userId, accountKey: caller.accountKey, email: user.email }))) return refuse('credential_taken');
  let codes: string[] | undefined;
  try {
    codes = await addToFactors(deps, caller, credentialId, passkey);
  } catch (error) {
    await deps.passkeys.deleteLookup(credentialId, caller.accountKey);
    throw error;
  }
  deps.audit({ type: 'auth.passkey_registered', userId: caller.userId, synced: passkey.backupEligible });
  const sessionsEnded = await endPasswordOnlySessions(deps, { accountKey: caller.accountKey, userId: caller.userId, keep: caller.session.sessionId });
  // The account was read above for its email: no second lookup by userId for the mail.
  await mailFactorAdded(deps, { userId: caller.userId, accountKey: caller.accountKey, email: user.email, change: 'passkey_added', factor: { kind: 'passkey', credentialId }, now });
  return { passkey: passkeyView(credentialId, passkey), ...(codes !== undefined && { recoveryCodes: codes }), sessionsEnded };
}

/**
 * The passkey in the account's factors, with recovery codes when it is the first factor; the
 * codes, if any. The first factor's write is conditional on the account having none, so a
 * password-only caller loses to a factor enrolled meanwhile, and is refused on the re-read.
 */
async function addToFactors(deps: PasskeyDependencies, caller: AuthenticatedSession, credentialId: string, passkey: StoredPasskey): Promise<string[] | undefined> {
  const factorAdded = deps.accountEvents.of('factor.added', caller.userId, { factor: 'passkey', credentialId });
  for (let attempt = 1; ; attempt++) {
    const factors = await deps.mfa.read(caller.accountKey);
    requireFactorLoginOnceEnrolled(deps, caller, factors);
    const count = factors?.passkeys.size ?? 0;
    if (count >= PASSKEY_LIMITS.perAccount) throw new PasskeyLimitReachedError(PASSKEY_LIMITS.perAccount);
    const codes = hasActiveFactor(factors) ? undefined : newRecoveryCodes(MFA_LIMITS.recoveryCodes);
    const added = await deps.passkeys.add(caller.accountKey, {
      userId: caller.userId,
      credentialId,
      passkey,
      max: PASSKEY_LIMITS.perAccount,
      hadPasskeys: count > 0,
      ...(codes !== undefined && { recoveryCodes: codes.map((code) => recoveryCodeHash(code)!) }),
    }, factorAdded);
    if (added) return codes;
    // Another factor came or went meanwhile: read again and decide again.
    if (attempt >= MAX_ATTEMPTS) throw new TemporarilyUnavailableError(1);
  }
}
