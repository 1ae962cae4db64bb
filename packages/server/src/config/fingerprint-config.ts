import { decodeBase64NoPad } from 'passlane/encoding';
import { ConfigError } from './config-error.js';
import { readOnLambda, text, type Env } from './env.js';
import { readDataDir } from './server-config.js';

export const MIN_FINGERPRINT_KEY_BYTES = 32;

export interface FingerprintConfig {
  /**
   * PASSLANE_FINGERPRINT_KEY: the HMAC key email fingerprints are made with (logs, counter keys),
   * so a list of emails cannot be matched against them. A secret (`_PARAMETER` on Lambda).
   */
  key?: Uint8Array<ArrayBuffer>;
  /** PASSLANE_DATA_DIR: where a developer's machine keeps a generated key when none is set. */
  localKeyDir: string;
  /** On Lambda a generated key would differ per container: the key must be configured. */
  onLambda: boolean;
}

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
