import {
  DEFAULT_HOOK_TIMEOUT_MS,
  MAX_HOOK_TIMEOUT_MS,
  MIN_HOOK_TIMEOUT_MS,
  type HookConfig,
  type HooksConfig,
  type HookTarget,
  type TokenHookConfig,
} from '../hooks/settings.js';
import type { AwsConnection } from '../shared/aws-connection.js';
import { ConfigError } from './config-error.js';
import { httpsOrLoopbackUrl, oneOf, text, wholeNumber, type Env } from './env.js';
import { readStorageConfig } from './storage-config.js';

// Lambda's own rules: a name (64), `123456789012:function:name`, or an ARN; optional version or alias.
const FUNCTION_NAME = /^(?:arn:aws[a-z-]*:lambda:([a-z0-9-]+):\d{12}:function:|\d{12}:function:)?[A-Za-z0-9_-]{1,64}(?::(?:\$LATEST|[A-Za-z0-9_-]{1,128}))?$/;
// Standard Webhooks: `whsec_` and the base64 of the key (24 to 64 bytes, the specification's range).
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

/**
 * The token hook (PASSLANE_TOKEN_HOOK_URL or PASSLANE_TOKEN_HOOK_FUNCTION) and the sign-up hook
 * (PASSLANE_SIGNUP_HOOK_URL or _FUNCTION) with their settings; each absent when unset (off,
 * nothing asked). Two variables per hook, as lazy migration has: the deployments grant
 * lambda:InvokeFunction on the function's variable alone, never on a URL.
 */
export function readHooksConfig(env: Env): HooksConfig {
  const token = readHook(env, 'PASSLANE_TOKEN_HOOK');
  const signup = readHook(env, 'PASSLANE_SIGNUP_HOOK');
  const onFailure = oneOf(env, 'PASSLANE_TOKEN_HOOK_ON_FAILURE', ['refuse', 'without_claims'] as const);
  if (token === undefined && onFailure !== undefined) throw new ConfigError('PASSLANE_TOKEN_HOOK_ON_FAILURE', 'is set but neither PASSLANE_TOKEN_HOOK_URL nor PASSLANE_TOKEN_HOOK_FUNCTION is');
  return {
    ...(token !== undefined && { token: { ...token, onFailure: onFailure ?? 'refuse' } satisfies TokenHookConfig }),
    ...(signup !== undefined && { signup }),
  };
}

/** One hook: `<prefix>_URL` or `<prefix>_FUNCTION`, `<prefix>_SECRETS` (the URL's), `<prefix>_TIMEOUT_MS`. */
function readHook(env: Env, prefix: string): HookConfig | undefined {
  const url = text(env, `${prefix}_URL`);
  const functionName = text(env, `${prefix}_FUNCTION`);
  const secrets = text(env, `${prefix}_SECRETS`);
  const timeoutName = `${prefix}_TIMEOUT_MS`;
  if (url !== undefined && functionName !== undefined) throw new ConfigError(`${prefix}_URL`, `and ${prefix}_FUNCTION are both set; set one (which to ask would be a guess)`);
  if (url === undefined && functionName === undefined) {
    // A half-finished setup is refused, not ignored.
    if (secrets !== undefined) throw new ConfigError(`${prefix}_SECRETS`, `is set but ${prefix}_URL is not`);
    if (text(env, timeoutName) !== undefined) throw new ConfigError(timeoutName, `is set but neither ${prefix}_URL nor ${prefix}_FUNCTION is`);
    return undefined;
  }
  const timeoutMs = wholeNumber(env, timeoutName, { fallback: DEFAULT_HOOK_TIMEOUT_MS, min: MIN_HOOK_TIMEOUT_MS, max: MAX_HOOK_TIMEOUT_MS });
  if (url !== undefined) return { target: { kind: 'url', url: readUrl(`${prefix}_URL`, url), secrets: readSecrets(`${prefix}_SECRETS`, secrets, `${prefix}_URL`) }, timeoutMs };
  return { target: readFunction(env, prefix, functionName!, secrets), timeoutMs };
}

function readFunction(env: Env, prefix: string, functionName: string, secrets: string | undefined): HookTarget {
  // IAM signs Lambda invocations; a shared secret there would be a second key to rotate for nothing.
  if (secrets !== undefined) throw new ConfigError(`${prefix}_SECRETS`, `is for ${prefix}_URL; ${prefix}_FUNCTION is signed by IAM`);
  if (!FUNCTION_NAME.test(functionName)) {
    throw new ConfigError(`${prefix}_FUNCTION`, `must be a Lambda function name, partial ARN or ARN, optionally with :version or :alias (got ${JSON.stringify(functionName)})`);
  }
  return { kind: 'function', functionName, connection: readLambdaConnection(env, functionName) };
}

/** Absolute https; plain http only to a loopback host (a local receiver), since the body holds an address. */
function readUrl(name: string, value: string): string {
  const fail = (why: string) => new ConfigError(name, `${why} (got ${JSON.stringify(value)})`);
  const url = httpsOrLoopbackUrl(value, fail, {
    notUrl: 'must be an absolute https URL',
    notHttps: 'must be https (http only on localhost or 127.0.0.1): the request carries an email address',
  });
  if (url.username !== '' || url.password !== '' || value.includes('#')) throw fail('must have no credentials or fragment (the request is signed instead)');
  return url.href;
}

/** Space-separated Standard Webhooks secrets, the current one first; never quoted (they are keys). */
function readSecrets(name: string, value: string | undefined, urlName: string): string[] {
  if (value === undefined) throw new ConfigError(name, `is required with ${urlName} (or ${name}_PARAMETER): it signs every request`);
  const secrets = value.split(/\s+/);
  secrets.forEach((secret, index) => {
    if (!WEBHOOK_SECRET.test(secret)) throw new ConfigError(name, `secret ${index + 1} must be a Standard Webhooks secret: whsec_ and the base64 of 24 to 64 random bytes`);
  });
  return secrets;
}

/** As lazy migration's: the storage's credentials (or the SDK's chain), a full ARN's region or AWS_REGION. */
function readLambdaConnection(env: Env, functionName: string): AwsConnection {
  const { region, credentials } = readStorageConfig(env);
  const connection: AwsConnection = {};
  const chosen = FUNCTION_NAME.exec(functionName)?.[1] ?? region;
  if (chosen !== undefined) connection.region = chosen;
  if (credentials !== undefined) connection.credentials = credentials;
  return connection;
}
