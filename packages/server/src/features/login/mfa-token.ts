import { sha256 } from '@noble/hashes/sha2.js';
import { base64url } from 'jose';
import { utf8 } from 'passlane/encoding';

/**
 * The MFA token a right password earns on an account with a second factor: 32 random bytes
 * (base64url), stored only as its SHA-256 (the item's key), like refresh tokens: a copy of the
 * table finishes no login. Short-lived and single-use (mfa-store.ts).
 */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function newMfaToken(): { token: string; hash: string } {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  return { token: base64url.encode(secret), hash: base64url.encode(sha256(secret)) };
}

/** The stored key of a presented token; undefined for anything that is not one of ours. */
export function mfaTokenHash(token: string): string | undefined {
  if (!TOKEN.test(token)) return undefined;
  return base64url.encode(sha256(base64url.decode(token)));
}

/** What binds an MFA token to the password verified: a change of the password since voids it. */
export function passwordMark(passwordHash: string): string {
  return base64url.encode(sha256(utf8(passwordHash)));
}
