import { importPKCS8, SignJWT } from 'jose';
import type { ApplePreset } from './preset-settings.js';

/**
 * How long a client secret made here lives, and how long before its end a new one is made.
 * Apple accepts up to six months; a day is chosen so that a secret seen in transit or in a log
 * is soon worthless, while signing one is a millisecond's work once a day per container.
 */
export const APPLE_SECRET_LIFETIME_SECONDS = 24 * 60 * 60;
export const APPLE_SECRET_RENEW_BEFORE_SECONDS = 60 * 60;

/** Apple's documented maximum (six months), which the lifetime above stays under. */
export const APPLE_SECRET_MAX_SECONDS = 15_777_000;

/**
 * Apple's client secret: a JWT signed ES256 with the team's Sign in with Apple key (the `.p8`
 * file), `kid` the key's id, `iss` the team id, `sub` the client (Services) id, `aud` Apple's
 * issuer, `iat` and `exp`. Made on first use and again when the cached one is within an hour of
 * its end, once per container; `now` is the caller's clock.
 */
export function appleClientSecret(preset: ApplePreset, clientId: string, audience: string): (now: Date) => Promise<string> {
  let key: Promise<CryptoKey> | undefined;
  let cached: { value: string; expiresAt: number } | undefined;
  return async (now) => {
    const seconds = Math.floor(now.getTime() / 1000);
    if (cached !== undefined && cached.expiresAt - APPLE_SECRET_RENEW_BEFORE_SECONDS > seconds) return cached.value;
    key ??= importPKCS8(preset.privateKey, 'ES256').catch((error: unknown) => {
      key = undefined;
      // The message would name nothing of the key; the cause stays out of logs (it may quote it).
      throw new Error(`the Apple key ${preset.keyId} is not a PKCS #8 P-256 private key (the .p8 file)`, { cause: error });
    });
    const expiresAt = seconds + APPLE_SECRET_LIFETIME_SECONDS;
    const value = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: preset.keyId })
      .setIssuer(preset.teamId)
      .setSubject(clientId)
      .setAudience(audience)
      .setIssuedAt(seconds)
      .setExpirationTime(expiresAt)
      .sign(await key);
    cached = { value, expiresAt };
    return value;
  };
}
