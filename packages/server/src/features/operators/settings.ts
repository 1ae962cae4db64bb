/**
 * One admin key as stored (PASSLANE_ADMIN_KEYS, `id:sha256hex` pairs): its id (what audit events
 * name as the operator) and the SHA-256 of the key. The key itself is never stored: 256 random
 * bits, so a plain hash is enough (nothing to guess from it), and a copy of the setting lets no
 * one in. Several at once: a new key is added, the old one removed once no one uses it.
 */
export interface AdminKey {
  id: string;
  /** SHA-256 of the whole key string, lower-case hex. */
  sha256: string;
}

/** The operator API's setting on hosts other than Lambda: off (no key) unless PASSLANE_ADMIN_KEYS is set. */
export interface OperatorConfig {
  adminKeys: readonly AdminKey[];
}

/** An admin key's id: what audit events carry, so letters, digits, `.`, `_` and `-` only, at most 64. */
export const ADMIN_KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
