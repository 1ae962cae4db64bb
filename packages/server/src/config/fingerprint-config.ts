import { decodeBase64NoPad } from 'passlane/encoding';
import { MIN_FINGERPRINT_KEY_BYTES, type FingerprintConfig } from '../accounts/settings.js';
import { ConfigError } from './config-error.js';
import { readOnLambda, text, type Env } from './env.js';
import { readDataDir } from './server-config.js';

export function readFingerprintConfig(env: Env): FingerprintConfig {
  const config: FingerprintConfig = {
    localKeyDir: readDataDir(env),
    onLambda: readOnLambda(env),
  };
  const encoded = text(env, 'PASSLANE_FINGERPRINT_KEY');
  if (encoded !== undefined) config.key = decodeFingerprintKey(encoded, 'PASSLANE_FINGERPRINT_KEY');
  return config;
}

/** Standard base64 (padding optional) of at least 32 random bytes; `where` names the source in errors, never the value. */
export function decodeFingerprintKey(encoded: string, where: string): Uint8Array<ArrayBuffer> {
  let key: Uint8Array<ArrayBuffer>;
  try {
    key = decodeBase64NoPad(encoded.trim().replace(/={1,2}$/, ''));
  } catch {
    throw new ConfigError(where, 'must be standard base64');
  }
  if (key.length < MIN_FINGERPRINT_KEY_BYTES) throw new ConfigError(where, `must hold at least ${MIN_FINGERPRINT_KEY_BYTES} bytes`);
  return key;
}
