import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { toHex, utf8 } from 'passlane/encoding';

/** The email's short keyed fingerprint: what logs and counter keys carry instead of the email. */
export type EmailFingerprint = (email: string) => string;

/**
 * A 64-bit prefix of HMAC-SHA-256 of the canonical email under a server key: enough to
 * correlate attempts on one account in logs and to key its counters, and, being keyed, of no
 * use to someone holding a list of emails and a copy of the logs (a plain hash would let them
 * match every address). Computed in JavaScript, the same on every host: a few microseconds for
 * an email, where Web Crypto on Node queues each call to the thread pool and back through the
 * event loop, which costs the login more CPU than the HMAC itself (docs/measurements.md, "Login CPU").
 */
export function createEmailFingerprint(key: Uint8Array): EmailFingerprint {
  // The key's inner and outer states are computed once, not per email.
  const keyed = hmac.create(sha256, key);
  return (email) => toHex(keyed.clone().update(utf8(email)).digest().subarray(0, 8));
}
