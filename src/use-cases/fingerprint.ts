import { toHex, utf8 } from '../hashing/encoding.js';

/**
 * A short SHA-256 prefix of the normalised email: enough to correlate attempts on one account
 * in logs and to key its rate-limit counter, without writing the address itself anywhere new.
 */
export async function emailFingerprint(email: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(email)));
  return toHex(digest.subarray(0, 8));
}
