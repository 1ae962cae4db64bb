/**
 * Secrets in deployment: the template holds only parameter NAMES (`<VARIABLE>_PARAMETER`), and
 * the values are fetched once per container at cold start. Local runs and tests set the plain
 * variables instead, and then no secret store is contacted at all.
 */

import { PasslaneServerError } from '../../accounts/errors.js';
import { text, type Env } from '../../config/env.js';

/** Where secret values are kept (SSM Parameter Store on Lambda; anything else in tests). */
export interface SecretSource {
  /** The decrypted value stored under `name`; rejects if there is none. */
  get(name: string): Promise<string>;
}

/**
 * The variables that hold secrets. Public keys and settings stay plain env. A function fetches
 * only those whose `_PARAMETER` its deployment sets (the migration secret: login's alone).
 */
export const SECRET_VARIABLES = [
  'PASSLANE_PEPPER_KEYS',
  'PASSLANE_JWT_PRIVATE_KEY',
  'PASSLANE_FINGERPRINT_KEY',
  'PASSLANE_MFA_KEYS',
  'PASSLANE_MIGRATION_SECRET',
  // The sign-in providers' client secrets and keys, one JSON object (oauth-secrets.ts).
  'PASSLANE_OAUTH_SECRETS',
  // Account events' webhooks, URLs and signing secrets together (the events function's).
  'PASSLANE_WEBHOOKS',
  // The hooks' Standard Webhooks secrets (src/hooks), only with a hook by URL.
  'PASSLANE_TOKEN_HOOK_SECRETS',
  'PASSLANE_SIGNUP_HOOK_SECRETS',
] as const;
export type SecretVariable = (typeof SECRET_VARIABLES)[number];

export const parameterVariableOf = (variable: SecretVariable): string => `${variable}_PARAMETER`;

/** A secret could not be read. Names the variable and the parameter, never a value. */
export class SecretLoadError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SecretLoadError';
  }
}

/**
 * The secret store could not be reached or did not answer (network, timeout, throttling, 5xx,
 * retries spent): a cold start that should be retried shortly, so an API answer
 * (`temporarily_unavailable`, with Retry-After); the message, naming variable and parameter, is
 * for the logs. A refusal (no such parameter, access denied) is a SecretLoadError: a deployment
 * to fix, answered `internal_error` like any fault of ours.
 */
export class SecretsUnavailableError extends PasslaneServerError {
  declare readonly retryAfterSeconds: number;

  constructor(message: string, options?: { cause?: unknown }) {
    // The SDK already retried with backoff; a client's next attempt usually lands on a warm container or a recovered SSM.
    super('temporarily_unavailable', message, { retryAfterSeconds: 2, cause: options?.cause });
    // Spelled out: the Lambda bundle is minified, and this name is what its logs show.
    this.name = 'SecretsUnavailableError';
  }
}

/**
 * `env` with every secret variable whose `_PARAMETER` is set filled in from the source (fetched
 * in parallel). The source is created only if some `_PARAMETER` is set. Setting both a variable
 * and its `_PARAMETER` is refused: which one wins would be a guess.
 */
export async function loadSecrets(env: Env, createSource: () => SecretSource | Promise<SecretSource>): Promise<Env> {
  const wanted = SECRET_VARIABLES.flatMap((variable) => {
    const parameter = text(env, parameterVariableOf(variable));
    if (parameter === undefined) return [];
    if (text(env, variable) !== undefined) {
      throw new SecretLoadError(`set either ${variable} or ${parameterVariableOf(variable)}, not both`);
    }
    return [{ variable, parameter }];
  });
  if (wanted.length === 0) return env;

  const source = await createSource();
  const values = await Promise.all(
    wanted.map(async ({ variable, parameter }) => {
      try {
        return [variable, await source.get(parameter)] as const;
      } catch (cause) {
        const message = `could not read ${variable} from parameter ${parameter}`;
        throw isUnavailable(cause) ? new SecretsUnavailableError(message, { cause }) : new SecretLoadError(message, { cause });
      }
    }),
  );
  return { ...env, ...Object.fromEntries(values) };
}

const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** Server faults, throttling and transport failures, as the AWS SDK reports them. */
function isUnavailable(error: unknown): boolean {
  const fields = error as { $fault?: unknown; $retryable?: unknown; name?: unknown; code?: unknown } | null;
  return (
    fields?.$fault === 'server' ||
    fields?.$retryable !== undefined ||
    fields?.name === 'TimeoutError' ||
    (typeof fields?.code === 'string' && NETWORK_ERROR_CODES.has(fields.code))
  );
}
