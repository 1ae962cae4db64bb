import { sha256 } from '@noble/hashes/sha2.js';
import { base64url } from 'jose';
import { toHex, utf8 } from 'passlane/encoding';
import { ADMIN_KEY_ID, type AdminKey } from './settings.js';

/** What a new admin key's string starts with: it says what it is where it turns up (a shell history, a secret store). */
export const ADMIN_KEY_PREFIX = 'passlane_admin_';

/**
 * A new admin key: the key (shown once, given to the operator) and the line to add to
 * PASSLANE_ADMIN_KEYS (`id:sha256hex`), which holds no secret. `passlane admin-key <id>` prints both.
 */
export function newAdminKey(id: string): { key: string; stored: string } {
  if (!ADMIN_KEY_ID.test(id)) throw new RangeError('an admin key id is letters, digits, ".", "_" or "-", at most 64');
  const key = `${ADMIN_KEY_PREFIX}${base64url.encode(crypto.getRandomValues(new Uint8Array(32)))}`;
  return { key, stored: `${id}:${adminKeyHash(key)}` };
}

/** SHA-256 of the key string, lower-case hex: what PASSLANE_ADMIN_KEYS stores. */
export function adminKeyHash(key: string): string {
  return toHex(sha256(utf8(key)));
}

/**
 * The stored key the presented one hashes to, or undefined. Compared with every stored key in
 * constant time (no early exit on a differing byte, nor on the first match): how long it takes
 * tells nothing of the hashes.
 */
export function matchAdminKey(keys: readonly AdminKey[], presented: string): AdminKey | undefined {
  const hash = adminKeyHash(presented);
  let found: AdminKey | undefined;
  for (const key of keys) {
    if (sameHex(key.sha256, hash) && found === undefined) found = key;
  }
  return found;
}

function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
