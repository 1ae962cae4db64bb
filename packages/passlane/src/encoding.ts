/**
 * Byte/text encodings used by the hash formats. Each format has its own base64 dialect, so each
 * gets a named function instead of flags; all decoders are strict (they throw on bad input).
 */
const textEncoder = new TextEncoder();

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return textEncoder.encode(text);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function utf8Length(text: string): number {
  // Cheaper than encoding: counts UTF-8 bytes without allocating.
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** bcrypt's own alphabet (OpenBSD): same idea, different order. */
const BCRYPT = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function lookup(alphabet: string): Int16Array {
  const table = new Int16Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
}
const STANDARD_LOOKUP = lookup(STANDARD);
const BCRYPT_LOOKUP = lookup(BCRYPT);

function encodeWith(bytes: Uint8Array, alphabet: string): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i]!;
    const b1 = i + 1 < bytes.length ? bytes[i + 1]! : 0;
    const b2 = i + 2 < bytes.length ? bytes[i + 2]! : 0;
    out += alphabet[b0 >> 2]! + alphabet[((b0 & 3) << 4) | (b1 >> 4)]!;
    if (i + 1 < bytes.length) out += alphabet[((b1 & 15) << 2) | (b2 >> 6)]!;
    if (i + 2 < bytes.length) out += alphabet[b2 & 63]!;
  }
  return out;
}

/** Decodes unpadded base64 in the given alphabet; rejects stray characters and impossible lengths. */
function decodeWith(text: string, table: Int16Array, name: string, allowNonZeroTail = false): Uint8Array<ArrayBuffer> {
  if (text.length % 4 === 1) throw new SyntaxError(`invalid ${name} length`);
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? table[code]! : -1;
    if (value < 0) throw new SyntaxError(`invalid ${name} character`);
    acc = ((acc << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  // Non-canonical trailing bits would let two strings decode to the same bytes.
  if (!allowNonZeroTail && bits > 0 && (acc & ((1 << bits) - 1)) !== 0) {
    throw new SyntaxError(`non-canonical ${name}`);
  }
  return out;
}

/** PHC strings: standard alphabet, no padding (padded or URL-safe input is rejected, as by the reference). */
export function encodeBase64NoPad(bytes: Uint8Array): string {
  return encodeWith(bytes, STANDARD);
}
export function decodeBase64NoPad(text: string): Uint8Array<ArrayBuffer> {
  return decodeWith(text, STANDARD_LOOKUP, 'base64');
}

/** Standard base64 with `=` padding, as Django writes its pbkdf2 digests. */
export function encodeBase64Padded(bytes: Uint8Array): string {
  const bare = encodeWith(bytes, STANDARD);
  return bare + '='.repeat((4 - (bare.length % 4)) % 4);
}
export function decodeBase64Padded(text: string): Uint8Array<ArrayBuffer> {
  if (text.length % 4 !== 0) throw new SyntaxError('invalid padded base64 length');
  const bare = text.replace(/={1,2}$/, '');
  return decodeWith(bare, STANDARD_LOOKUP, 'base64');
}

/** passlib's "adapted base64": standard alphabet with `.` for `+` (passlib reads `+` too), no padding. */
export function decodeAdaptedBase64(text: string): Uint8Array<ArrayBuffer> {
  return decodeWith(text.replaceAll('.', '+'), STANDARD_LOOKUP, 'ab64');
}

/** bcrypt salts: 22 characters in bcrypt's alphabet carry 16 bytes (the last 4 bits are ignored). */
export function decodeBcryptBase64(text: string): Uint8Array<ArrayBuffer> {
  return decodeWith(text, BCRYPT_LOOKUP, 'bcrypt base64', true);
}

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/**
 * Compares two byte strings in time that depends only on their lengths, never on where they
 * differ. Web Crypto has no timingSafeEqual, and this must run on edge runtimes too.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
