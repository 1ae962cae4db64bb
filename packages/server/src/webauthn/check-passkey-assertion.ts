import { generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { PasskeyFailureReason } from '../accounts/audit-events.js';
import { epochSeconds } from '../shared/epoch-seconds.js';
import type { PasskeyStore, StoredPasskey } from '../storage/passkey-store.js';
import { CHALLENGE_SECONDS, type WebAuthnConfig } from './relying-party.js';

/** The `amr` value of a passkey (RFC 8176): `swk` for a synced one (backup eligible), `hwk` for one bound to its device. */
export type PasskeyAmr = 'hwk' | 'swk';

export type AssertionVerdict = { ok: true; amr: PasskeyAmr } | { ok: false; reason: PasskeyFailureReason };

/**
 * Checks an assertion against a stored passkey and records its use: the signature over the
 * challenge, origin (one of the configured), RP ID, user presence and, where asked, user
 * verification (@simplewebauthn refuses a counter that went back); then that the backup
 * eligibility is the stored one (it cannot change for a credential, so a change is another
 * authenticator's answer), then the new counter, written only over the value read (of two uses
 * of one assertion exactly one wins).
 */
export async function checkPasskeyAssertion(
  deps: { passkeys: Pick<PasskeyStore, 'recordUse'>; webauthn: WebAuthnConfig },
  input: { accountKey: string; passkey: StoredPasskey; response: AuthenticationResponseJSON; expectedChallenge: string; requireUserVerification: boolean; now: Date },
): Promise<AssertionVerdict> {
  const { passkey, response } = input;
  let info;
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: input.expectedChallenge,
      expectedOrigin: [...deps.webauthn.origins],
      expectedRPID: deps.webauthn.rpId,
      credential: { id: response.id, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter },
      requireUserVerification: input.requireUserVerification,
    });
    if (!verified.verified) return { ok: false, reason: 'not_verified' };
    info = verified.authenticationInfo;
  } catch (error) {
    // The library says why in words only; the counter's is the one worth telling apart in the audit.
    return { ok: false, reason: /counter/i.test(error instanceof Error ? error.message : '') ? 'counter_regression' : 'not_verified' };
  }
  if ((info.credentialDeviceType === 'multiDevice') !== passkey.backupEligible) return { ok: false, reason: 'backup_eligibility_changed' };
  const used = await deps.passkeys.recordUse(input.accountKey, response.id, passkey.counter, {
    counter: info.newCounter,
    backedUp: info.credentialBackedUp,
    lastUsedAt: epochSeconds(input.now),
  });
  if (!used) return { ok: false, reason: 'replayed' };
  return { ok: true, amr: passkey.backupEligible ? 'swk' : 'hwk' };
}

/**
 * The request options of a login's second factor (the `mfa_required` answer's `webauthn`): the
 * account's passkeys allowed, user verification preferred (the password was the first factor).
 */
export async function secondFactorOptions(webauthn: WebAuthnConfig, passkeys: ReadonlyMap<string, StoredPasskey>): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: webauthn.rpId,
    allowCredentials: [...passkeys].map(([id, passkey]) => ({ id, transports: passkey.transports })),
    userVerification: 'preferred',
    timeout: CHALLENGE_SECONDS * 1000,
  });
}
