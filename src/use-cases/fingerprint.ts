import { toHex, utf8 } from '../hashing/encoding.js';

/** The email's short keyed fingerprint: what logs and counter keys carry instead of the email. */
export type EmailFingerprint = (email: string) => Promise<string>;

/**
 * A 64-bit prefix of HMAC-SHA-256 of the normalised email under a server key: enough to
 * correlate attempts on one account in logs and to key its counters, and, being keyed, of no
 * use to someone holding a list of emails and a copy of the logs (a plain hash would let them
 * match every address). Web Crypto, so it runs on every host.
 */
export async function createEmailFingerprint(key: Uint8Array<ArrayBuffer>): Promise<EmailFingerprint> {
  const hmacKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return async (email) => toHex(new Uint8Array(await crypto.subtle.sign('HMAC', hmacKey, utf8(email))).subarray(0, 8));
}
