import { DEFAULT_MIGRATION_TIMEOUT_MS, MIN_MIGRATION_SECRET_LENGTH, type MigrationConfig } from '../features/migration/settings.js';
import type { AwsConnection } from '../shared/aws-connection.js';
import { ConfigError } from './config-error.js';
import { httpsOrLoopbackUrl, text, wholeNumber, type Env } from './env.js';
import { readStorageConfig } from './storage-config.js';

// Lambda's own rules: a name (64), `123456789012:function:name`, or an ARN; optional version or alias.
const FUNCTION_NAME = /^(?:arn:aws[a-z-]*:lambda:([a-z0-9-]+):\d{12}:function:|\d{12}:function:)?[A-Za-z0-9_-]{1,64}(?::(?:\$LATEST|[A-Za-z0-9_-]{1,128}))?$/;

export function readMigrationConfig(env: Env): MigrationConfig | undefined {
  const url = text(env, 'PASSLANE_MIGRATION_URL');
  const functionName = text(env, 'PASSLANE_MIGRATION_FUNCTION');
  const secret = text(env, 'PASSLANE_MIGRATION_SECRET');
  if (url !== undefined && functionName !== undefined) {
    throw new ConfigError('PASSLANE_MIGRATION_URL', 'and PASSLANE_MIGRATION_FUNCTION are both set; set one (which old system to ask would be a guess)');
  }
  if (url === undefined && functionName === undefined) {
    // A secret without a URL is a half-finished setup, not something to ignore silently.
    if (secret !== undefined) throw new ConfigError('PASSLANE_MIGRATION_SECRET', 'is set but PASSLANE_MIGRATION_URL is not');
    return undefined;
  }
  const timeoutMs = wholeNumber(env, 'PASSLANE_MIGRATION_TIMEOUT_MS', { fallback: DEFAULT_MIGRATION_TIMEOUT_MS, min: 100, max: 10_000 });
  if (url !== undefined) return { kind: 'url', url: readMigrationUrl(url), secret: readSecret(secret), timeoutMs };
  // IAM signs Lambda invocations; a shared secret there would be a second key to rotate for nothing.
  if (secret !== undefined) throw new ConfigError('PASSLANE_MIGRATION_SECRET', 'is for PASSLANE_MIGRATION_URL; PASSLANE_MIGRATION_FUNCTION is signed by IAM');
  return { kind: 'function', functionName: readFunctionName(functionName!), timeoutMs, connection: readLambdaConnection(env, functionName!) };
}

/** Absolute https; plain http only to a loopback host (a local stand-in), since the body holds a password. */
function readMigrationUrl(value: string): string {
  const fail = (why: string) => new ConfigError('PASSLANE_MIGRATION_URL', `${why} (got ${JSON.stringify(value)})`);
  const url = httpsOrLoopbackUrl(value, fail, {
    notUrl: 'must be an absolute https URL',
    notHttps: 'must be https (http only on localhost or 127.0.0.1): the request carries a password',
  });
  if (url.username !== '' || url.password !== '' || value.includes('#')) throw fail('must have no credentials or fragment (the request is signed instead)');
  return url.href;
}

/** Never quoted: it is a key. */
function readSecret(secret: string | undefined): string {
  if (secret === undefined) {
    throw new ConfigError('PASSLANE_MIGRATION_SECRET', 'is required with PASSLANE_MIGRATION_URL (or PASSLANE_MIGRATION_SECRET_PARAMETER): it signs every request');
  }
  if (secret.length < MIN_MIGRATION_SECRET_LENGTH) {
    throw new ConfigError('PASSLANE_MIGRATION_SECRET', `must be at least ${MIN_MIGRATION_SECRET_LENGTH} characters (e.g. openssl rand -hex 32)`);
  }
  return secret;
}

function readFunctionName(value: string): string {
  if (!FUNCTION_NAME.test(value)) {
    throw new ConfigError('PASSLANE_MIGRATION_FUNCTION', `must be a Lambda function name, partial ARN or ARN, optionally with :version or :alias (got ${JSON.stringify(value)})`);
  }
  return value;
}

/**
 * As the SES connection is read: the credentials of the storage (or the SDK's chain), the region
 * of a full ARN (Lambda invokes only in the function's region) or else AWS_REGION.
 */
function readLambdaConnection(env: Env, functionName: string): AwsConnection {
  const { region, credentials } = readStorageConfig(env);
  const connection: AwsConnection = {};
  const arnRegion = FUNCTION_NAME.exec(functionName)?.[1];
  const chosen = arnRegion ?? region;
  if (chosen !== undefined) connection.region = chosen;
  if (credentials !== undefined) connection.credentials = credentials;
  const endpoint = text(env, 'PASSLANE_MIGRATION_LAMBDA_ENDPOINT');
  if (endpoint !== undefined) connection.endpoint = readEndpoint(endpoint);
  return connection;
}

function readEndpoint(value: string): string {
  try {
    const { protocol } = new URL(value);
    if (protocol === 'http:' || protocol === 'https:') return value;
  } catch {
    // refused below
  }
  throw new ConfigError('PASSLANE_MIGRATION_LAMBDA_ENDPOINT', `must be an http(s) URL (got ${JSON.stringify(value)})`);
}
