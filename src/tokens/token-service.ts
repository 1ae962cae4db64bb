import { detectRuntime } from '../runtime/detect-runtime.js';
import { TokenConfigError } from './errors.js';
import { issueAccessToken, type IssuedAccessToken, type IssueAccessTokenInput } from './issue-access-token.js';
import { publicJwks, type PublicJwks } from './jwks.js';
import { keyringFromConfig, publicKeyringFromConfig, signingKeyConfigFromEnv, type Env, type Keyring, type PublicKeyring } from './keys.js';
import { loadOrCreateLocalSigningKey } from './local-signing-key.js';
import { DEFAULT_CLOCK_TOLERANCE_S, verifyAccessToken, type VerifiedAccessToken } from './verify-access-token.js';

/** Verify and publish: all that public keys allow, and all the JWKS and discovery functions need. */
export interface PublicTokenService {
  readonly issuer: string;
  readonly audience: string;
  verify(token: string, options?: { now?: Date }): Promise<VerifiedAccessToken>;
  jwks(): PublicJwks;
}

/** Issue, verify and publish, bound to one keyring and one set of claims settings. */
export interface TokenService extends PublicTokenService {
  readonly ttlSeconds: number;
  issue(input: IssueAccessTokenInput): Promise<IssuedAccessToken>;
}

export interface PublicTokenServiceOptions {
  keyring: PublicKeyring;
  issuer?: string;
  audience?: string;
  clockToleranceSeconds?: number;
}

export interface TokenServiceOptions extends PublicTokenServiceOptions {
  keyring: Keyring;
  ttlSeconds?: number;
}

export const DEFAULT_ISSUER = 'passlane';
export const DEFAULT_AUDIENCE = 'passlane-api';
/** 15 minutes: a stolen token is useful only briefly, and there is no revocation check. */
export const DEFAULT_ACCESS_TOKEN_TTL_S = 900;
export const MIN_ACCESS_TOKEN_TTL_S = 60;
export const MAX_ACCESS_TOKEN_TTL_S = 86_400;
export const DEFAULT_DATA_DIR = '.data';

export function createTokenService(options: TokenServiceOptions): TokenService {
  const ttlSeconds = checkTtl(options.ttlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_S, 'ttlSeconds');
  const published = createPublicTokenService(options);
  const { issuer, audience } = published;
  return { ...published, ttlSeconds, issue: (input) => issueAccessToken(options.keyring, { issuer, audience, ttlSeconds }, input) };
}

export function createPublicTokenService(options: PublicTokenServiceOptions): PublicTokenService {
  const issuer = requireText(options.issuer ?? DEFAULT_ISSUER, 'issuer');
  const audience = requireText(options.audience ?? DEFAULT_AUDIENCE, 'audience');
  const clockToleranceSeconds = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_S;
  const { keyring } = options;
  return {
    issuer,
    audience,
    verify: (token, { now } = {}) =>
      // maxTokenAge: even a token whose `exp` was set far out (a leaked key, a bug) dies within a day.
      verifyAccessToken(keyring, token, { issuer, audience, clockToleranceSeconds, maxTokenAgeSeconds: MAX_ACCESS_TOKEN_TTL_S, now }),
    jwks: () => publicJwks(keyring),
  };
}

/** PASSLANE_JWT_ISSUER, PASSLANE_JWT_AUDIENCE, PASSLANE_ACCESS_TOKEN_TTL_S, with defaults. */
export function tokenSettingsFromEnv(env: Env): { issuer: string; audience: string; ttlSeconds: number } {
  const ttlText = present(env.PASSLANE_ACCESS_TOKEN_TTL_S);
  if (ttlText !== undefined && !/^\d+$/.test(ttlText)) throw new TokenConfigError('PASSLANE_ACCESS_TOKEN_TTL_S must be a whole number of seconds');
  return {
    issuer: present(env.PASSLANE_JWT_ISSUER) ?? DEFAULT_ISSUER,
    audience: present(env.PASSLANE_JWT_AUDIENCE) ?? DEFAULT_AUDIENCE,
    ttlSeconds: checkTtl(ttlText === undefined ? DEFAULT_ACCESS_TOKEN_TTL_S : Number(ttlText), 'PASSLANE_ACCESS_TOKEN_TTL_S'),
  };
}

/**
 * The service as configured by env. Keys come from PASSLANE_JWT_PRIVATE_KEY; only when that is
 * unset, and only on a developer's machine, from (or into) `<dataDir>/jwt-signing-key.json`.
 * On Lambda a missing key is a deployment error: a key generated there would differ per instance
 * and vanish with it, so tokens would fail at random and the JWKS would never match.
 */
export async function tokenServiceFromEnv(env: Env, options: { dataDir?: string } = {}): Promise<TokenService> {
  const settings = tokenSettingsFromEnv(env);
  const config = signingKeyConfigFromEnv(env);
  let keyring: Keyring;
  if (config.privateJwk !== undefined) {
    keyring = await keyringFromConfig(config, config.privateJwk);
  } else {
    refuseLocalKeyOutsideDevelopment(env);
    const dataDir = options.dataDir ?? present(env.PASSLANE_DATA_DIR) ?? DEFAULT_DATA_DIR;
    const local = await loadOrCreateLocalSigningKey(dataDir, { algorithm: config.algorithm });
    keyring = await keyringFromConfig(config, local.privateJwk, local.path);
  }
  return createTokenService({ keyring, ...settings });
}

/**
 * For functions that only publish or verify (the JWKS and discovery documents): built from
 * PASSLANE_JWT_PUBLIC_KEYS when it is set, so they never hold the private key (nor the right to
 * read it). Without it (local runs, the Worker, a deployment that sets no public keys) this is
 * tokenServiceFromEnv's service, whose published keys are the same.
 */
export async function publicTokenServiceFromEnv(env: Env, options: { dataDir?: string } = {}): Promise<PublicTokenService> {
  const config = signingKeyConfigFromEnv(env);
  if (config.publicJwks === undefined) return tokenServiceFromEnv(env, options);
  const { issuer, audience } = tokenSettingsFromEnv(env);
  return createPublicTokenService({ keyring: await publicKeyringFromConfig(config), issuer, audience });
}

function refuseLocalKeyOutsideDevelopment(env: Env): void {
  const runtime = detectRuntime();
  if (env.AWS_LAMBDA_FUNCTION_NAME || env.AWS_EXECUTION_ENV || runtime === 'lambda') {
    throw new TokenConfigError(
      'PASSLANE_JWT_PRIVATE_KEY is not set; on AWS Lambda the signing key must come from configuration (SSM or Secrets Manager), never a generated local key',
    );
  }
  if (runtime !== 'node' && runtime !== 'bun' && runtime !== 'deno') {
    throw new TokenConfigError(`PASSLANE_JWT_PRIVATE_KEY is not set, and ${runtime} has no filesystem for a local key`);
  }
}

function checkTtl(value: number, name: string): number {
  if (!Number.isInteger(value) || value < MIN_ACCESS_TOKEN_TTL_S || value > MAX_ACCESS_TOKEN_TTL_S) {
    throw new TokenConfigError(`${name} must be an integer from ${MIN_ACCESS_TOKEN_TTL_S} to ${MAX_ACCESS_TOKEN_TTL_S}`);
  }
  return value;
}

function requireText(value: string, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new TokenConfigError(`${name} must be a non-empty string`);
  return value;
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
