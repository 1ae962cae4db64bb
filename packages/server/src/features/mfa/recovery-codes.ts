import { sha256 } from '@noble/hashes/sha2.js';
import { base64url } from 'jose';
import { utf8 } from 'passlane/encoding';

/**
 * Recovery codes: 16 characters of base32 (80 bits from the CSPRNG), shown as four groups of
 * four. Stored as SHA-256, not argon2id: a fast hash is enough for a secret of 80 random bits
 * (a copy of the table would need ~2^79 hashes per code), and a login pays no second slow
 * hash. Typed back loosely: case, spaces and hyphens do not matter.
 */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const CODE_CHARS = 16;

export function newRecoveryCodes(count: number): string[] {
  return Array.from({ length: count }, () => {
    const bytes = crypto.getRandomValues(new Uint8Array(CODE_CHARS));
    // 256 is a multiple of 32: each byte modulo 32 is uniform.
    const chars = Array.from(bytes, (byte) => ALPHABET[byte % 32]).join('');
    return chars.match(/.{4}/g)!.join('-');
  });
}

/** The code as stored: undefined for anything that cannot be one (never hashed then). */
export function recoveryCodeHash(code: string): string | undefined {
  const normal = code.toLowerCase().replace(/[\s-]/g, '');
  if (normal.length !== CODE_CHARS || ![...normal].every((char) => ALPHABET.includes(char))) return undefined;
  return base64url.encode(sha256(utf8(`passlane-recovery:${normal}`)));
}
