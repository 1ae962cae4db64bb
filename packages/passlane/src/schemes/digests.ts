/**
 * PBKDF2, HMAC and SHA-256 through Web Crypto: the same code on Node, Lambda and edge runtimes,
 * and Node runs PBKDF2 off the main thread.
 */
export type DigestName = 'SHA-1' | 'SHA-256' | 'SHA-512';

export async function pbkdf2(
  digest: DigestName,
  password: Uint8Array<ArrayBuffer>,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
  keyLength: number,
): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: digest, salt, iterations }, key, keyLength * 8);
  return new Uint8Array(bits);
}

export async function hmacSha256(key: Uint8Array<ArrayBuffer>, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, message));
}

export async function webDigest(name: DigestName, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(name, message));
}

export const sha256 = (message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> => webDigest('SHA-256', message);
