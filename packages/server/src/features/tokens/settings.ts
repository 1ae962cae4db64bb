import type { JWK } from 'jose';

/**
 * The access tokens' settings: who issues them for whom, how long they live, and where the keys
 * come from. config/token-config.ts reads them from the environment; in code, pass your own to
 * tokenServiceFromConfig (token-service.ts), which checks them (TokenConfigError).
 */

/** RS256 is here because API Gateway's HTTP API JWT authorizer only verifies RSA signatures. */
export const SIGNING_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export const DEFAULT_ISSUER = 'passlane';
export const DEFAULT_AUDIENCE = 'passlane-api';
/** RFC 9068 requires `client_id`: passlane has one public client, its own apps, under this name. */
export const DEFAULT_CLIENT_ID = 'passlane';

/**
 * RFC 6749 §3.3's scope-token: printable ASCII but space, `"` and `\`. A `scope` claim is these
 * joined by spaces (RFC 9068 §2.2.3), as API Gateway's `authorizationScopes` read it.
 */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
/** RFC 6749 Appendix A.1's client-id: printable ASCII (VSCHAR); here also non-empty and without spaces at either end. */
export const CLIENT_ID = /^[\x21-\x7E]([\x20-\x7E]*[\x21-\x7E])?$/;
/** 15 minutes: a stolen token is useful only briefly, and there is no revocation check. */
export const DEFAULT_ACCESS_TOKEN_TTL_S = 900;
export const MIN_ACCESS_TOKEN_TTL_S = 60;
export const MAX_ACCESS_TOKEN_TTL_S = 86_400;

/** Where keys come from, parsed but not yet validated as keys or imported (keys.ts does that). */
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
  /** PASSLANE_OAUTH_CLIENT_ID (passlane): every token's `client_id` (RFC 9068 §2.2). */
  clientId: string;
  /**
   * PASSLANE_TOKEN_SCOPES (none): every token's `scope`, each a scope-token (`SCOPE_TOKEN`); none:
   * no `scope` claim. Every token of every session carries the same ones: there is one client.
   */
  scopes: readonly string[];
  /**
   * PASSLANE_REQUIRED_SCOPE (none): a token without this scope is refused where this service
   * verifies tokens (passlane's Bearer routes: 403 `insufficient_scope`; the Lambda authorizer:
   * denied). Each function reads its own, so the authorizer's may differ from the API's.
   */
  requiredScope?: string;
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
