/**
 * The secrets a deployment reads from SSM, for `npm run offline`: a variable set in the
 * environment is used as it is; otherwise its value is generated once into the data directory
 * (mode 0600, shared/local-secret-file.ts) and kept there, as `npm start` keeps its keys. The
 * signing and fingerprint keys are npm start's own files, so an offline token verifies against npm
 * start's keys too; the pepper, which npm start does without, gets a file of its own. The public
 * JWKS is derived from the signing key unless PASSLANE_JWT_PUBLIC_KEYS is set.
 *
 * Generated here, before the functions start: under serverless-offline they see
 * AWS_LAMBDA_FUNCTION_NAME, and on Lambda a function refuses to generate a key (each container
 * would make its own).
 */
import type { JWK } from 'jose';
import { encodeBase64Padded } from 'passlane/encoding';
import { ConfigError } from '../../packages/server/src/config/config-error.js';
import { text, type Env } from '../../packages/server/src/config/env.js';
import { publicJwks } from '../../packages/server/src/features/tokens/jwks.js';
import { createKeyring } from '../../packages/server/src/features/tokens/keys.js';
import { loadOrCreateLocalSigningKey } from '../../packages/server/src/features/tokens/local-signing-key.js';
import { readOrCreateLocalSecret } from '../../packages/server/src/shared/local-secret-file.js';
import { LOCAL_FINGERPRINT_KEY_FILE, LOCAL_MFA_KEYS_FILE } from '../../packages/server/src/wiring/build-dependencies.js';

/** The pepper's file in the data directory: `local:<32 random bytes, base64>`, the first (and only) key. */
export const LOCAL_PEPPER_KEYS_FILE = 'pepper-keys';

/** The variables to add to the functions' environment: the secrets `env` does not set, and the public keys. Never printed. */
export async function offlineSecrets(dataDir: string, env: Env): Promise<Record<string, string>> {
  const secrets: Record<string, string> = {};
  const givenKey = text(env, 'PASSLANE_JWT_PRIVATE_KEY');
  const privateJwk = givenKey === undefined ? (await loadOrCreateLocalSigningKey(dataDir)).privateJwk : parsePrivateKey(givenKey);
  if (givenKey === undefined) secrets.PASSLANE_JWT_PRIVATE_KEY = JSON.stringify(privateJwk);
  if (text(env, 'PASSLANE_JWT_PUBLIC_KEYS') === undefined) secrets.PASSLANE_JWT_PUBLIC_KEYS = JSON.stringify(publicJwks(await createKeyring(privateJwk)));
  if (text(env, 'PASSLANE_FINGERPRINT_KEY') === undefined) {
    secrets.PASSLANE_FINGERPRINT_KEY = await localSecret(dataDir, LOCAL_FINGERPRINT_KEY_FILE, 'PASSLANE_FINGERPRINT_KEY', () => randomBase64());
  }
  if (text(env, 'PASSLANE_MFA_KEYS') === undefined) {
    secrets.PASSLANE_MFA_KEYS = await localSecret(dataDir, LOCAL_MFA_KEYS_FILE, 'PASSLANE_MFA_KEYS', () => `local:${randomBase64()}`);
  }
  if (text(env, 'PASSLANE_PEPPER_KEYS') === undefined) {
    secrets.PASSLANE_PEPPER_KEYS = await localSecret(dataDir, LOCAL_PEPPER_KEYS_FILE, 'PASSLANE_PEPPER_KEYS', () => `local:${randomBase64()}`);
  }
  return secrets;
}

function parsePrivateKey(value: string): JWK {
  try {
    return JSON.parse(value) as JWK;
  } catch {
    // The parser's message would quote the key.
    throw new ConfigError('PASSLANE_JWT_PRIVATE_KEY', 'is not valid JSON');
  }
}

const randomBase64 = (): string => encodeBase64Padded(crypto.getRandomValues(new Uint8Array(32)));

async function localSecret(dataDir: string, file: string, variable: string, generate: () => string): Promise<string> {
  const { text: value } = await readOrCreateLocalSecret(
    dataDir,
    file,
    async () => `${generate()}\n`,
    (message) => new ConfigError(variable, `is not set, and the local key failed: ${message}`),
  );
  return value.trim();
}
