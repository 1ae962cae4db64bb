import { ADMIN_KEY_ID, type AdminKey, type OperatorConfig } from '../features/operators/settings.js';
import { ConfigError } from './config-error.js';
import { text, type Env } from './env.js';

const VARIABLE = 'PASSLANE_ADMIN_KEYS';

/**
 * PASSLANE_ADMIN_KEYS: the admin keys that may call the operator API on the Node server, Deno and
 * Bun, as comma-separated `id:sha256hex` pairs (`passlane admin-key <id>` prints one); unset, the
 * operator API is not served there. Hashes only: the setting lets no one in. Several at once,
 * to rotate: add the new key's line, move the operators to it, remove the old line.
 */
export function readAdminConfig(env: Env): OperatorConfig | undefined {
  const value = text(env, VARIABLE);
  if (value === undefined) return undefined;
  const keys = value.split(',').map((entry, i) => readKey(entry.trim(), i + 1));
  const ids = keys.map((key) => key.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined) throw new ConfigError(VARIABLE, `names the key id ${JSON.stringify(duplicate)} twice: each key needs its own id (it is what audit events name)`);
  return { adminKeys: keys };
}

function readKey(entry: string, position: number): AdminKey {
  // The value is hashes and ids, no secret: quoting the id is safe, but a pasted key (the secret) is never echoed.
  const fail = (why: string) => new ConfigError(VARIABLE, `entry ${position} ${why}; each entry is id:sha256hex, as \`passlane admin-key <id>\` prints it`);
  const colon = entry.indexOf(':');
  if (colon < 0) throw fail('has no ":"');
  const id = entry.slice(0, colon);
  const hash = entry.slice(colon + 1);
  if (!ADMIN_KEY_ID.test(id)) throw fail('has an id that is not 1 to 64 letters, digits, ".", "_" or "-"');
  if (!/^[0-9a-f]{64}$/i.test(hash)) throw fail('is not followed by 64 hex digits (the SHA-256 of the key, never the key itself)');
  return { id, sha256: hash.toLowerCase() };
}
