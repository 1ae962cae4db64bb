import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64url } from 'jose';
import { constantTimeEqual, utf8 } from 'passlane/encoding';

/**
 * Refresh tokens: `<account key>.<session id>.<secret>`. The secret is 32 bytes (256 bits) from
 * the platform's CSPRNG; the two ids only say where the session is stored. Opaque to clients.
 * The store keeps a SHA-256 of the secret, never the secret: a copy of the table does not sign
 * anyone in. A fast hash is right here, unlike for passwords: the secret has 256 bits of entropy.
 * SHA-256 and HMAC run in JavaScript, the same on every host: for 32 bytes that takes
 * microseconds, where Web Crypto on Node would queue each call to the thread pool and back.
 */
export interface RefreshToken {
  /** The email fingerprint that keys the account's sessions item. */
  accountKey: string;
  sessionId: string;
  secret: Uint8Array<ArrayBuffer>;
}

export const SECRET_BYTES = 32;
const SESSION_ID_BYTES = 16;
const ACCOUNT_KEY = /^[0-9a-f]{16}$/;
const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export function newSessionId(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(SESSION_ID_BYTES)));
}

export function newSecret(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
}

export function formatRefreshToken({ accountKey, sessionId, secret }: RefreshToken): string {
  return formatItemToken({ accountKey, id: sessionId, secret });
}

/** The token's parts, or undefined for anything that is not one of ours. */
export function parseRefreshToken(token: unknown): RefreshToken | undefined {
  const parts = parseItemToken(token);
  return parts && { accountKey: parts.accountKey, sessionId: parts.id, secret: parts.secret };
}

/**
 * `<account key>.<id>.<secret>`: the shape of refresh tokens and device tokens (device-token.ts),
 * whose ids (16 random bytes) say where in the account's sessions item the secret's hash is.
 */
export function formatItemToken({ accountKey, id, secret }: { accountKey: string; id: string; secret: Uint8Array }): string {
  return `${accountKey}.${id}.${base64url.encode(secret)}`;
}

export function parseItemToken(token: unknown): { accountKey: string; id: string; secret: Uint8Array<ArrayBuffer> } | undefined {
  if (typeof token !== 'string' || token.length > 200) return undefined;
  const [accountKey, id, secret, ...rest] = token.split('.');
  if (rest.length > 0 || !ACCOUNT_KEY.test(accountKey ?? '') || !SESSION_ID.test(id ?? '') || !SECRET.test(secret ?? '')) return undefined;
  return { accountKey: accountKey!, id: id!, secret: new Uint8Array(base64url.decode(secret!)) };
}

/** The public id of a session (the access token's `sid`, the id GET /sessions lists): where it lives and which it is. */
export function publicSessionId(accountKey: string, sessionId: string): string {
  return `${accountKey}.${sessionId}`;
}

export function parsePublicSessionId(value: unknown): { accountKey: string; sessionId: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const [accountKey, sessionId, ...rest] = value.split('.');
  if (rest.length > 0 || !ACCOUNT_KEY.test(accountKey ?? '') || !SESSION_ID.test(sessionId ?? '')) return undefined;
  return { accountKey: accountKey!, sessionId: sessionId! };
}

/** What the store keeps of a secret: base64url SHA-256. */
export function secretHash(secret: Uint8Array): string {
  return base64url.encode(sha256(secret));
}

/** A shorter mark of a spent secret, enough to recognise it when it comes back (128 bits). */
export function spentMark(hash: string): string {
  return hash.slice(0, 22);
}

export function sameHash(a: string, b: string | undefined): boolean {
  return b !== undefined && constantTimeEqual(utf8(a), utf8(b));
}

/**
 * The new secret of a rotation, sealed so that only the holder of the secret it replaced can
 * open it: XOR with HMAC-SHA-256(old secret, label and session id). Each old secret seals one new
 * secret only, so the pad is never reused. Within the grace window a client that presents the
 * spent secret again (two tabs, a lost response) receives the same new secret, and a session
 * keeps one live token. A copy of the table opens nothing: the old secret is stored only hashed.
 */
export function sealNextSecret(oldSecret: Uint8Array, sessionId: string, next: Uint8Array): string {
  return base64url.encode(xor(next, padFor(oldSecret, sessionId)));
}

export function openNextSecret(oldSecret: Uint8Array, sessionId: string, sealed: string): Uint8Array<ArrayBuffer> | undefined {
  let bytes: Uint8Array;
  try {
    bytes = base64url.decode(sealed);
  } catch {
    return undefined;
  }
  if (bytes.length !== SECRET_BYTES) return undefined;
  return xor(bytes, padFor(oldSecret, sessionId));
}

function padFor(secret: Uint8Array, sessionId: string): Uint8Array {
  return hmac(sha256, secret, utf8(`passlane refresh-token next v1 ${sessionId}`));
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(SECRET_BYTES);
  for (let i = 0; i < SECRET_BYTES; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}
