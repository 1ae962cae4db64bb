import type { JWK } from 'jose';
import {
  CLIENT_ID,
  DEFAULT_ACCESS_TOKEN_TTL_S,
  DEFAULT_AUDIENCE,
  DEFAULT_CLIENT_ID,
  DEFAULT_ISSUER,
  MAX_ACCESS_TOKEN_TTL_S,
  MIN_ACCESS_TOKEN_TTL_S,
  SCOPE_TOKEN,
  SIGNING_ALGORITHMS,
  type SigningKeyConfig,
  type TokenConfig,
} from '../features/tokens/settings.js';
import { ConfigError } from './config-error.js';
import { json, oneOf, readOnLambda, text, wholeNumber, type Env } from './env.js';
import { readDataDir } from './server-config.js';

export function readTokenConfig(env: Env): TokenConfig {
  const [requiredScope] = scopeList(env, 'PASSLANE_REQUIRED_SCOPE', { one: true });
  return {
    issuer: text(env, 'PASSLANE_JWT_ISSUER') ?? DEFAULT_ISSUER,
    audience: text(env, 'PASSLANE_JWT_AUDIENCE') ?? DEFAULT_AUDIENCE,
    clientId: clientId(env, 'PASSLANE_OAUTH_CLIENT_ID') ?? DEFAULT_CLIENT_ID,
    scopes: scopeList(env, 'PASSLANE_TOKEN_SCOPES'),
    ...(requiredScope !== undefined && { requiredScope }),
    ttlSeconds: wholeNumber(env, 'PASSLANE_ACCESS_TOKEN_TTL_S', {
      fallback: DEFAULT_ACCESS_TOKEN_TTL_S,
      min: MIN_ACCESS_TOKEN_TTL_S,
      max: MAX_ACCESS_TOKEN_TTL_S,
    }),
    keys: readSigningKeyConfig(env),
    localKeyDir: readDataDir(env),
    onLambda: readOnLambda(env),
    publicUrl: httpUrl(env, 'PASSLANE_PUBLIC_URL'),
    trustHostHeader: oneOf(env, 'PASSLANE_DISCOVERY_TRUST_HOST', ['true', 'false']) === 'true',
  };
}

/** RFC 6749's client-id: printable ASCII. */
function clientId(env: Env, name: string): string | undefined {
  const value = text(env, name);
  if (value !== undefined && !CLIENT_ID.test(value)) throw new ConfigError(name, 'must be printable ASCII (an OAuth client id)');
  return value;
}

/** Scope-tokens separated by spaces (RFC 6749 §3.3), each once; `one`: exactly one. */
function scopeList(env: Env, name: string, { one = false } = {}): string[] {
  const tokens = (text(env, name) ?? '').split(/ +/).filter((token) => token !== '');
  const bad = tokens.find((token) => !SCOPE_TOKEN.test(token));
  if (bad !== undefined) throw new ConfigError(name, `must be scopes separated by spaces, each printable ASCII without quotes or backslashes (got ${JSON.stringify(bad.slice(0, 40))})`);
  if (one && tokens.length > 1) throw new ConfigError(name, `must be one scope (got ${tokens.length}): a token must carry it`);
  return [...new Set(tokens)];
}

function httpUrl(env: Env, name: string): string | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new ConfigError(name, `must be an http(s) URL (got ${JSON.stringify(value)})`);
  return value;
}

/**
 * PASSLANE_JWT_PRIVATE_KEY, PASSLANE_JWT_KEY_ID, PASSLANE_JWT_PUBLIC_KEYS,
 * PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS, PASSLANE_JWT_ALG. Errors name the variable, never a key's
 * contents.
 */
export function readSigningKeyConfig(env: Env): SigningKeyConfig {
  const config: SigningKeyConfig = {
    previousPublicJwks: keyList(env, 'PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS') ?? [],
    algorithm: oneOf(env, 'PASSLANE_JWT_ALG', SIGNING_ALGORITHMS),
  };
  const publicJwks = keyList(env, 'PASSLANE_JWT_PUBLIC_KEYS');
  if (publicJwks !== undefined) {
    if (publicJwks.length === 0) throw new ConfigError('PASSLANE_JWT_PUBLIC_KEYS', 'must list at least the current key');
    config.publicJwks = publicJwks;
  }

  const privateJwk = privateKeyJwk(env);
  if (privateJwk === undefined) return config;
  const kid = text(env, 'PASSLANE_JWT_KEY_ID');
  if (kid !== undefined && privateJwk.kid !== undefined && privateJwk.kid !== kid) {
    throw new ConfigError('PASSLANE_JWT_KEY_ID', 'differs from the "kid" inside PASSLANE_JWT_PRIVATE_KEY; set only one');
  }
  config.privateJwk = { ...privateJwk, kid: privateJwk.kid ?? kid } as JWK;
  return config;
}

const JWK_EXPECTED = 'must be a private JWK (a JSON object): `passlane keygen` makes one';

/** PASSLANE_JWT_PRIVATE_KEY as a JWK object; a PEM key or other text is named as such, never quoted. */
function privateKeyJwk(env: Env): Record<string, unknown> | undefined {
  const value = text(env, 'PASSLANE_JWT_PRIVATE_KEY');
  if (value === undefined) return undefined;
  if (value.trimStart().startsWith('-----BEGIN')) {
    throw new ConfigError('PASSLANE_JWT_PRIVATE_KEY', `is a PEM key; it ${JWK_EXPECTED} (or convert yours: jose's importPKCS8, then exportJWK)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError('PASSLANE_JWT_PRIVATE_KEY', `is not valid JSON; it ${JWK_EXPECTED}`);
  }
  if (!isObject(parsed)) throw new ConfigError('PASSLANE_JWT_PRIVATE_KEY', JWK_EXPECTED);
  return parsed;
}

/** A JWKS (`{"keys":[...]}`) or a bare array of JWKs. */
function keyList(env: Env, name: string): JWK[] | undefined {
  const parsed = json(env, name);
  if (parsed === undefined) return undefined;
  const keys = isObject(parsed) && Array.isArray(parsed.keys) ? parsed.keys : parsed;
  if (!Array.isArray(keys)) throw new ConfigError(name, 'must be a JWKS or a JSON array of public JWKs');
  return keys as JWK[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
