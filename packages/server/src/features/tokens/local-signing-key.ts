import type { JWK } from 'jose';
import { readOrCreateLocalSecret } from '../../shared/local-secret-file.js';
import { TokenConfigError } from './errors.js';
import { DEFAULT_SIGNING_ALGORITHM, generateSigningKey, type SigningAlgorithm } from './keys.js';

/**
 * Local runs only: a signing key generated once and kept in the data directory, so tokens survive
 * a restart (the file handling is packages/server/src/shared/local-secret-file.ts). The service never calls this
 * where there is no filesystem (or on Lambda).
 */
export const LOCAL_SIGNING_KEY_FILE = 'jwt-signing-key.json';

export interface LocalSigningKey {
  privateJwk: JWK;
  path: string;
  /** True when this call generated the key (worth a log line: tokens from before are now invalid). */
  created: boolean;
}

export async function loadOrCreateLocalSigningKey(
  dataDir: string,
  options: { algorithm?: SigningAlgorithm } = {},
): Promise<LocalSigningKey> {
  const { text, path, created } = await readOrCreateLocalSecret(
    dataDir,
    LOCAL_SIGNING_KEY_FILE,
    async () => `${JSON.stringify(await generateSigningKey(options.algorithm ?? DEFAULT_SIGNING_ALGORITHM), null, 2)}\n`,
    // Where there is no filesystem, say which variable to set instead.
    (message) => new TokenConfigError(message.startsWith('no filesystem') ? `${message}; set PASSLANE_JWT_PRIVATE_KEY` : message),
  );
  try {
    return { privateJwk: JSON.parse(text) as JWK, path, created };
  } catch {
    // Not regenerated silently: the file is the user's, and a new key would void every token.
    throw new TokenConfigError(`${path} is not valid JSON; delete it to generate a new key`);
  }
}
