import { decodeBase64Padded } from 'passlane/encoding';
import type { MfaConfig, MfaKey } from '../features/mfa/settings.js';
import { ConfigError } from './config-error.js';
import { oneOf, readOnLambda, text, type Env } from './env.js';
import { readServiceName } from './mail-config.js';
import { readDataDir } from './server-config.js';

/**
 * Second factors (features/mfa): PASSLANE_MFA_KEYS (the keys sealing TOTP secrets, like the
 * pepper's: `id:base64,...`, the first seals, all open), PASSLANE_MFA_ISSUER (what apps show;
 * PASSLANE_SERVICE_NAME by default), PASSLANE_REQUIRE_MFA.
 */
export function readMfaConfig(env: Env): MfaConfig {
  const list = text(env, 'PASSLANE_MFA_KEYS');
  const issuer = text(env, 'PASSLANE_MFA_ISSUER') ?? readServiceName(env);
  // The otpauth label is `issuer:account`: a colon in the issuer would split it elsewhere.
  if (issuer.length > 100 || /[:\p{Cc}]/u.test(issuer)) throw new ConfigError('PASSLANE_MFA_ISSUER', 'must be one line of at most 100 characters without ":"');
  return {
    ...(list !== undefined && { keys: decodeMfaKeys(list, 'PASSLANE_MFA_KEYS') }),
    localKeyDir: readDataDir(env),
    onLambda: readOnLambda(env),
    issuer,
    requireMfa: oneOf(env, 'PASSLANE_REQUIRE_MFA', ['true', 'false']) === 'true',
  };
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** `id:base64key[,id:base64key...]`, each key 32 bytes; `where` names the source in errors, never a key. */
export function decodeMfaKeys(list: string, where: string): MfaKey[] {
  const keys: MfaKey[] = [];
  for (const item of list.trim().split(',')) {
    const colon = item.indexOf(':');
    if (colon <= 0) throw new ConfigError(where, 'must be "id:base64key[,id:base64key...]"');
    const id = item.slice(0, colon).trim();
    const fail = (why: string) => new ConfigError(where, `key ${JSON.stringify(id)} ${why} (\`passlane keygen\` makes one)`);
    if (!KEY_ID.test(id)) throw fail('has an id other than 1 to 64 letters, digits, ".", "_" or "-"');
    if (keys.some((key) => key.id === id)) throw new ConfigError(where, `names key ${JSON.stringify(id)} twice`);
    let key: Uint8Array<ArrayBuffer>;
    try {
      key = decodeBase64Padded(item.slice(colon + 1).trim());
    } catch {
      throw fail('is not standard base64 (with = padding) of 32 random bytes');
    }
    if (key.length !== 32) throw fail(`is ${key.length} bytes, not the 32 bytes AES-256 needs`);
    keys.push({ id, key });
  }
  return keys;
}
