/**
 * The signature on every request to PASSLANE_MIGRATION_URL, Stripe's webhook scheme:
 *
 *   Passlane-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<exact body>")>
 *
 * The key is the secret's UTF-8 bytes; the hex is lower-case. The receiver recomputes it over the
 * raw body it received, compares in constant time, and refuses a `t` more than
 * MIGRATION_SIGNATURE_TOLERANCE_SECONDS from its own clock (README.md here). Web Crypto, so
 * the Worker signs the same way.
 */
import { toHex, utf8 } from 'passlane/encoding';

export const MIGRATION_SIGNATURE_HEADER = 'Passlane-Signature';
/** What the receiver should allow between `t` and its clock: a captured request replays for no longer. */
export const MIGRATION_SIGNATURE_TOLERANCE_SECONDS = 300;

/** Signs bodies under one secret; the key is imported once. */
export function createRequestSigner(secret: string): (body: string, nowSeconds: number) => Promise<string> {
  const key = crypto.subtle.importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return async (body, nowSeconds) => {
    const t = String(Math.floor(nowSeconds));
    const mac = await crypto.subtle.sign('HMAC', await key, utf8(`${t}.${body}`));
    return `t=${t},v1=${toHex(new Uint8Array(mac))}`;
  };
}
