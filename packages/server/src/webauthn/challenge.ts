import { sha256 } from '@noble/hashes/sha2.js';
import { base64url } from 'jose';
import { utf8 } from 'passlane/encoding';

/**
 * A WebAuthn challenge's stored key: its SHA-256 (base64url), so the table holds no challenge a
 * reader could answer with. The challenge itself is 32 random bytes (@simplewebauthn's default).
 */
export function challengeHash(challenge: string): string {
  return base64url.encode(sha256(utf8(challenge)));
}

/**
 * The challenge a response answers, from its clientDataJSON (base64url of JSON); undefined for
 * anything else. Read before the signature is checked only to find the stored challenge: the
 * verify then checks it again, with the rest of clientDataJSON.
 */
export function answeredChallenge(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(clientDataJSON))) as unknown;
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(challenge) ? challenge : undefined;
  } catch {
    return undefined;
  }
}
