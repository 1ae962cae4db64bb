/**
 * Secrets in deployment: the template holds only parameter NAMES (`<VARIABLE>_PARAMETER`), and
 * the values are fetched once per container at cold start. Local runs and tests set the plain
 * variables instead, and then no secret store is contacted at all.
 */

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
export const SECRET_VARIABLES = ['PASSLANE_PEPPER_KEYS', 'PASSLANE_JWT_PRIVATE_KEY', 'PASSLANE_FINGERPRINT_KEY', 'PASSLANE_MIGRATION_SECRET'] as const;
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
 * retries spent): a cold start that should be retried shortly, answered 503 with Retry-After.
 * A refusal (no such parameter, access denied) stays a SecretLoadError: a deployment to fix.
 */
export class SecretsUnavailableError extends SecretLoadError {
  /** The SDK already retried with backoff; a client's next attempt usually lands on a warm container or a recovered SSM. */
  readonly retryAfterSeconds = 2;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
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
