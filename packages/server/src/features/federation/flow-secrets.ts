import { sha256 } from '@noble/hashes/sha2.js';
import { base64url } from 'jose';
import { utf8 } from 'passlane/encoding';

/**
 * The secrets of a sign-in with a provider: `state`, the browser's cookie, the app code, the link
 * token. Each is 32 random bytes (base64url) and stored only as its SHA-256: a copy of the table
 * finishes no sign-in.
 */
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export function newFlowSecret(): { secret: string; hash: string } {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return { secret: base64url.encode(bytes), hash: base64url.encode(sha256(bytes)) };
}

/** The stored key of a presented secret; undefined for anything that is not one of ours. */
export function flowSecretHash(secret: unknown): string | undefined {
  if (typeof secret !== 'string' || !SECRET.test(secret)) return undefined;
  return base64url.encode(sha256(base64url.decode(secret)));
}

/** RFC 7636's verifier: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge: base64url of a SHA-256, 43 characters. */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 7636 S256: the verifier's SHA-256 is the challenge; compared in constant time. */
export function verifierMatches(verifier: unknown, challenge: string): boolean {
  if (typeof verifier !== 'string' || !CODE_VERIFIER.test(verifier)) return false;
  const computed = base64url.encode(sha256(utf8(verifier)));
  if (computed.length !== challenge.length) return false;
  let difference = 0;
  for (let index = 0; index < computed.length; index++) difference |= computed.charCodeAt(index) ^ challenge.charCodeAt(index);
  return difference === 0;
}

/**
 * The cookie binding a sign-in to the browser that started it: one per sign-in under way (two
 * tabs do not undo each other), named after the state's hash, so the callback finds it by the
 * `state` it carries. `__Host-`: Secure, Path=/, no Domain.
 */
export function stateCookieName(stateHash: string): string {
  return `__Host-passlane-oauth-${stateHash.slice(0, 16)}`;
}
