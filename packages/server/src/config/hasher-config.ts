import type { BackendChoice, PepperOptions } from 'passlane/common';
import { decodeBase64Padded } from 'passlane/encoding';
import type { HasherConfig } from '../accounts/settings.js';
import { ConfigError } from './config-error.js';
import { oneOf, readOnLambda, text, wholeNumber, type Env } from './env.js';

export function readHasherConfig(env: Env): HasherConfig {
  const memoryMiB =
    wholeNumber(env, 'PASSLANE_VERIFY_MEMORY_MB', { min: 64, max: 10_240 }) ??
    wholeNumber(env, 'AWS_LAMBDA_FUNCTION_MEMORY_SIZE', { min: 64, max: 10_240 });
  const timeMs = wholeNumber(env, 'PASSLANE_VERIFY_TIME_MS', { min: 100, max: 900_000 });
  return {
    backend: readArgon2Backend(env),
    pepper: readPepperKeys(env),
    verifyBudget: { ...(memoryMiB !== undefined && { memoryMiB }), ...(timeMs !== undefined && { timeMs }) },
    onLambda: readOnLambda(env),
  };
}

export function readArgon2Backend(env: Env): BackendChoice | undefined {
  return oneOf(env, 'PASSLANE_ARGON2_BACKEND', ['auto', 'native', 'wasm']);
}

/**
 * `PASSLANE_PEPPER_KEYS="2026-11:<base64>,2025-01:<base64>"`: the first key is current, the rest
 * stay readable until the rotation job has moved every record. Each id and key is checked here,
 * so a bad one names this variable (createPepper checks the same for keys given in code).
 */
export function readPepperKeys(env: Env): PepperOptions | undefined {
  const list = text(env, 'PASSLANE_PEPPER_KEYS');
  if (list === undefined) return undefined;
  const keys: Record<string, string> = {};
  let currentKeyId: string | undefined;
  for (const item of list.split(',')) {
    const colon = item.indexOf(':');
    if (colon <= 0) throw new ConfigError('PASSLANE_PEPPER_KEYS', 'must be "id:base64key[,id:base64key...]"');
    const id = item.slice(0, colon).trim();
    if (Object.hasOwn(keys, id)) throw new ConfigError('PASSLANE_PEPPER_KEYS', `names key ${JSON.stringify(id)} twice`);
    keys[id] = readPepperKey(id, item.slice(colon + 1).trim());
    currentKeyId ??= id;
  }
  return { currentKeyId: currentKeyId!, keys };
}

const PEPPER_KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The id (not secret) may be quoted; the key never is. */
function readPepperKey(id: string, key: string): string {
  const fail = (why: string) => new ConfigError('PASSLANE_PEPPER_KEYS', `key ${JSON.stringify(id)} ${why} (\`passlane keygen\` makes one)`);
  if (!PEPPER_KEY_ID.test(id)) throw fail('has an id other than 1 to 64 letters, digits, ".", "_" or "-"');
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64Padded(key);
  } catch {
    throw fail('is not standard base64 (with = padding) of 32 random bytes');
  }
  if (bytes.length !== 32) throw fail(`is ${bytes.length} bytes, not the 32 bytes AES-256 needs`);
  return key;
}
