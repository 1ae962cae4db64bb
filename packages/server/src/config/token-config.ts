import type { JWK } from 'jose';
import { ConfigError } from './config-error.js';
import { json, oneOf, readOnLambda, text, wholeNumber, type Env } from './env.js';
import { readDataDir } from './server-config.js';

/** RS256 is here because API Gateway's HTTP API JWT authorizer only verifies RSA signatures. */
export const SIGNING_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export const DEFAULT_ISSUER = 'passlane';
export const DEFAULT_AUDIENCE = 'passlane-api';
/** 15 minutes: a stolen token is useful only briefly, and there is no revocation check. */
export const DEFAULT_ACCESS_TOKEN_TTL_S = 900;
export const MIN_ACCESS_TOKEN_TTL_S = 60;
export const MAX_ACCESS_TOKEN_TTL_S = 86_400;

/** Where keys come from, parsed but not yet validated as keys or imported (packages/server/src/features/tokens/keys.ts does that). */
export interface SigningKeyConfig {
  /** PASSLANE_JWT_PRIVATE_KEY (with PASSLANE_JWT_KEY_ID as its kid if it has none); unset on local runs, which use a key file. */
  privateJwk?: JWK;
  /**
   * PASSLANE_JWT_PUBLIC_KEYS, when set: the published keys, the current signing key's public half
   * first. The functions that only publish or verify are built from these and never see the
   * private key; the signing functions check that the first one is their key.
   */
  publicJwks?: JWK[];
  /** PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS: keys tokens may still be verified with during a rotation. */
  previousPublicJwks: JWK[];
  /** PASSLANE_JWT_ALG, when set: the algorithm the key must have (and local keys are made with). */
  algorithm?: SigningAlgorithm;
}

export interface TokenConfig {
  /** PASSLANE_JWT_ISSUER (passlane). */
  issuer: string;
  /** PASSLANE_JWT_AUDIENCE (passlane-api). */
  audience: string;
  /** PASSLANE_ACCESS_TOKEN_TTL_S (900), from 60 to 86400. */
  ttlSeconds: number;
  keys: SigningKeyConfig;
  /** PASSLANE_DATA_DIR (.data): where a developer's machine keeps its generated key. */
  localKeyDir: string;
  /** AWS_LAMBDA_FUNCTION_NAME or AWS_EXECUTION_ENV is set: a generated key is refused there. */
  onLambda: boolean;
  /** PASSLANE_PUBLIC_URL: the API's public base URL, where discovery says the keys are. */
  publicUrl?: string;
  /** PASSLANE_DISCOVERY_TRUST_HOST (false): let the request's Host header say where the keys are. */
  trustHostHeader: boolean;
}

export function readTokenConfig(env: Env): TokenConfig {
  return {
    issuer: text(env, 'PASSLANE_JWT_ISSUER') ?? DEFAULT_ISSUER,
    audience: text(env, 'PASSLANE_JWT_AUDIENCE') ?? DEFAULT_AUDIENCE,
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

  const privateJwk = json(env, 'PASSLANE_JWT_PRIVATE_KEY');
  if (privateJwk === undefined) return config;
  if (!isObject(privateJwk)) throw new ConfigError('PASSLANE_JWT_PRIVATE_KEY', 'must be a JWK (a JSON object)');
  const kid = text(env, 'PASSLANE_JWT_KEY_ID');
  if (kid !== undefined && privateJwk.kid !== undefined && privateJwk.kid !== kid) {
    throw new ConfigError('PASSLANE_JWT_KEY_ID', 'differs from the "kid" inside PASSLANE_JWT_PRIVATE_KEY; set only one');
  }
  config.privateJwk = { ...privateJwk, kid: privateJwk.kid ?? kid } as JWK;
  return config;
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
