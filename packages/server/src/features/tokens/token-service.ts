import {
  CLIENT_ID,
  DEFAULT_ACCESS_TOKEN_TTL_S,
  DEFAULT_AUDIENCE,
  DEFAULT_CLIENT_ID,
  DEFAULT_ISSUER,
  MAX_ACCESS_TOKEN_TTL_S,
  MIN_ACCESS_TOKEN_TTL_S,
  SCOPE_TOKEN,
  type TokenConfig,
} from './settings.js';
import { localSecretsRefusedOn } from '../../shared/local-secret-file.js';
import { TokenConfigError } from './errors.js';
import { issueAccessToken, type IssuedAccessToken, type IssueAccessTokenInput } from './issue-access-token.js';
import { publicJwks, type PublicJwks } from './jwks.js';
import type { DiscoverySettings } from './authorization-server-metadata.js';
import { keyringFromConfig, publicKeyringFromConfig, type Keyring, type PublicKeyring } from './keys.js';
import { loadOrCreateLocalSigningKey } from './local-signing-key.js';
import type { CreateJwsSigner } from './sign-jws.js';
import { DEFAULT_CLOCK_TOLERANCE_S, verifyAccessToken, type VerifiedAccessToken } from './verify-access-token.js';

/** Verify and publish: all that public keys allow, and all the JWKS and discovery functions need. */
export interface PublicTokenService extends DiscoverySettings {
  readonly issuer: string;
  readonly audience: string;
  verify(token: string, options?: { now?: Date }): Promise<VerifiedAccessToken>;
  jwks(): PublicJwks;
}

/** Issue, verify and publish, bound to one keyring and one set of claims settings. */
export interface TokenService extends PublicTokenService {
  readonly ttlSeconds: number;
  /** Every token's `client_id`. */
  readonly clientId: string;
  issue(input: IssueAccessTokenInput): Promise<IssuedAccessToken>;
}

export interface PublicTokenServiceOptions extends DiscoverySettings {
  keyring: PublicKeyring;
  issuer?: string;
  audience?: string;
  clockToleranceSeconds?: number;
  /** Refuse tokens without this scope (InvalidTokenError `scope`); none: any scope. */
  requiredScope?: string;
}

export interface TokenServiceOptions extends PublicTokenServiceOptions {
  keyring: Keyring;
  ttlSeconds?: number;
  /** Every token's `client_id` (RFC 9068); `passlane` by default. */
  clientId?: string;
  /** Every token's `scope`; none by default (no claim). */
  scopes?: readonly string[];
}

export { DEFAULT_ACCESS_TOKEN_TTL_S, DEFAULT_AUDIENCE, DEFAULT_CLIENT_ID, DEFAULT_ISSUER, MAX_ACCESS_TOKEN_TTL_S, MIN_ACCESS_TOKEN_TTL_S };

export function createTokenService(options: TokenServiceOptions): TokenService {
  const ttlSeconds = checkTtl(options.ttlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_S, 'ttlSeconds');
  const clientId = options.clientId ?? DEFAULT_CLIENT_ID;
  if (typeof clientId !== 'string' || !CLIENT_ID.test(clientId)) throw new TokenConfigError('clientId must be printable ASCII (RFC 6749 client-id), not blank');
  const scopes = [...new Set((options.scopes ?? []).map((scope) => checkScope(scope, 'scopes')))];
  const published = createPublicTokenService(options);
  const { issuer, audience } = published;
  return { ...published, ttlSeconds, clientId, issue: (input) => issueAccessToken(options.keyring, { issuer, audience, ttlSeconds, clientId, scopes }, input) };
}

export function createPublicTokenService(options: PublicTokenServiceOptions): PublicTokenService {
  const issuer = requireText(options.issuer ?? DEFAULT_ISSUER, 'issuer');
  const audience = requireText(options.audience ?? DEFAULT_AUDIENCE, 'audience');
  const clockToleranceSeconds = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_S;
  const requiredScope = options.requiredScope === undefined ? undefined : checkScope(options.requiredScope, 'requiredScope');
  const { keyring, publicUrl, trustHostHeader } = options;
  return {
    issuer,
    audience,
    ...(publicUrl !== undefined && { publicUrl }),
    trustHostHeader: trustHostHeader === true,
    verify: (token, { now } = {}) =>
      // maxTokenAge: even a token whose `exp` was set far out (a leaked key, a bug) dies within a day.
      verifyAccessToken(keyring, token, { issuer, audience, clockToleranceSeconds, maxTokenAgeSeconds: MAX_ACCESS_TOKEN_TTL_S, requiredScope, now }),
    jwks: () => publicJwks(keyring),
  };
}

/**
 * The service as configured. Keys come from PASSLANE_JWT_PRIVATE_KEY; only when that is unset,
 * and only on a developer's machine, from (or into) `<localKeyDir>/jwt-signing-key.json`. On
 * Lambda a missing key is a deployment error: a key generated there would differ per instance
 * and vanish with it, so tokens would fail at random and the JWKS would never match.
 */
export async function tokenServiceFromConfig(config: TokenConfig, options: { signer?: CreateJwsSigner } = {}): Promise<TokenService> {
  const { keys, issuer, audience, ttlSeconds, clientId, scopes, requiredScope, publicUrl, trustHostHeader } = config;
  const { signer } = options;
  let keyring: Keyring;
  if (keys.privateJwk !== undefined) {
    keyring = await keyringFromConfig(keys, keys.privateJwk, { signer });
  } else {
    refuseLocalKeyOutsideDevelopment(config.onLambda);
    const local = await loadOrCreateLocalSigningKey(config.localKeyDir, { algorithm: keys.algorithm });
    keyring = await keyringFromConfig(keys, local.privateJwk, { label: local.path, signer });
  }
  return createTokenService({ keyring, issuer, audience, ttlSeconds, clientId, scopes, requiredScope, publicUrl, trustHostHeader });
}

/**
 * For functions that only publish or verify (the JWKS and discovery documents): built from
 * PASSLANE_JWT_PUBLIC_KEYS when it is set, so they never hold the private key (nor the right to
 * read it). Without it (local runs, the Worker, a deployment that sets no public keys) this is
 * tokenServiceFromConfig's service, whose published keys are the same.
 */
export async function publicTokenServiceFromConfig(config: TokenConfig): Promise<PublicTokenService> {
  if (config.keys.publicJwks === undefined) return tokenServiceFromConfig(config);
  const { issuer, audience, requiredScope, publicUrl, trustHostHeader } = config;
  return createPublicTokenService({ keyring: await publicKeyringFromConfig(config.keys), issuer, audience, requiredScope, publicUrl, trustHostHeader });
}

function refuseLocalKeyOutsideDevelopment(onLambda: boolean): void {
  const refusedOn = localSecretsRefusedOn(onLambda);
  if (refusedOn === 'lambda') {
    throw new TokenConfigError(
      'PASSLANE_JWT_PRIVATE_KEY is not set; on AWS Lambda the signing key must come from configuration (SSM or Secrets Manager), never a generated local key',
    );
  }
  if (refusedOn !== undefined) throw new TokenConfigError(`PASSLANE_JWT_PRIVATE_KEY is not set, and ${refusedOn} has no filesystem for a local key`);
}

function checkTtl(value: number, name: string): number {
  if (!Number.isInteger(value) || value < MIN_ACCESS_TOKEN_TTL_S || value > MAX_ACCESS_TOKEN_TTL_S) {
    throw new TokenConfigError(`${name} must be an integer from ${MIN_ACCESS_TOKEN_TTL_S} to ${MAX_ACCESS_TOKEN_TTL_S}`);
  }
  return value;
}

function checkScope(value: string, name: string): string {
  if (typeof value !== 'string' || !SCOPE_TOKEN.test(value)) throw new TokenConfigError(`${name} must hold RFC 6749 scope-tokens: printable ASCII without spaces, quotes or backslashes`);
  return value;
}

function requireText(value: string, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new TokenConfigError(`${name} must be a non-empty string`);
  return value;
}
