/** The Worker's bindings, and the one place this runtime reads them into settings. */
import type { CorsConfig } from '../../api/settings.js';
import { readCorsConfig } from '../../config/cors-config.js';
import { readConfig, type PasslaneConfig } from '../../config/read-config.js';

/**
 * Secrets (`wrangler secret put`) and vars (`[vars]` in wrangler.toml) both arrive as strings on
 * `env`; nothing is read from `process.env`, which workerd lacks.
 */
export interface WorkerEnv {
  /** Secret: the private signing JWK (JSON). Never generated on the edge. */
  PASSLANE_JWT_PRIVATE_KEY?: string;
  /** Var: the published keys (a JWKS, current first). Alone, it serves the JWKS routes with no private key. */
  PASSLANE_JWT_PUBLIC_KEYS?: string;
  /** Secret: `id:base64key[,id:base64key...]`, the first one current. */
  PASSLANE_PEPPER_KEYS?: string;
  /** Secret: base64 of 32 random bytes, the HMAC key of email fingerprints. Required on the edge. */
  PASSLANE_FINGERPRINT_KEY?: string;
  /** Secrets: an IAM user's keys allowed to use the table (Workers have no AWS credential chain). */
  AWS_ACCESS_KEY_ID?: string;
  AWS_SECRET_ACCESS_KEY?: string;
  AWS_SESSION_TOKEN?: string;
  AWS_REGION?: string;
  /** Only for a local or test DynamoDB (dynalite, DynamoDB Local). */
  DYNAMODB_ENDPOINT?: string;
  PASSLANE_TABLE?: string;
  PASSLANE_JWT_ISSUER?: string;
  PASSLANE_JWT_AUDIENCE?: string;
  PASSLANE_ACCESS_TOKEN_TTL_S?: string;
  PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE?: string;
  PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING?: string;
  PASSLANE_LOGIN_LIMIT_PER_IP?: string;
  PASSLANE_LOGIN_LIMIT_WINDOW_S?: string;
  /** Var: origins whose pages may call the Worker, comma-separated (packages/server/src/api/README.md, "CORS"). */
  PASSLANE_CORS_ORIGINS?: string;
  /**
   * Var: the sign-in providers (JSON, src/config/README.md); their secrets are secrets of their
   * own, `PASSLANE_OAUTH_<NAME>_CLIENT_SECRET` and Apple's `PASSLANE_OAUTH_<NAME>_PRIVATE_KEY`
   * (read through the index signature below, like every binding).
   */
  PASSLANE_OAUTH_PROVIDERS?: string;
  /** Var: where the providers call back (`<url>/oauth/<name>/callback`); the issuer by default. */
  PASSLANE_PUBLIC_URL?: string;
  [binding: string]: unknown;
}

export type StringEnv = Record<string, string | undefined>;

/**
 * The settings the wiring builds this isolate's services from. No file system for an outbox here:
 * unless a transport is bound, mail is off (`none`, logged per mail).
 */
export function readWorkerConfig(env: WorkerEnv): PasslaneConfig {
  return readConfig({ PASSLANE_MAIL_TRANSPORT: 'none', ...stringBindings(env) });
}

const corsByEnv = new WeakMap<object, CorsConfig>();

/**
 * The origins browsers may call the Worker from (PASSLANE_CORS_ORIGINS), read once per bindings
 * object (workerd hands an isolate's requests the same one; Vercel's is the module's). A bad value
 * throws at each request, answered 500 and logged naming the variable, like any other setting here.
 */
export function readWorkerCors(env: WorkerEnv): CorsConfig {
  let cors = corsByEnv.get(env);
  if (cors === undefined) corsByEnv.set(env, (cors = readCorsConfig(stringBindings(env))));
  return cors;
}

/** The string bindings only: what the configuration readers (src/config) take. */
export function stringBindings(env: WorkerEnv): StringEnv {
  const strings: StringEnv = {};
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string') strings[name] = value;
  return strings;
}
