/**
 * What the Lambda runtime hands a login function, for the benches that run the bundled handlers
 * in a process of their own (bench/login.ts, bench/login-ab.ts and their workers): the deployed
 * environment, an API Gateway event and a context, and the benches' whole-number options.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { LambdaHttpEvent } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { withLiftedLoginLimits } from './load/lifted-limits.js';

/**
 * What serverless.yml gives the login function, with the secrets as plain values (fresh ones) and
 * the login limits lifted (bench/load/lifted-limits.ts), against `dynamoDbEndpoint`.
 */
export async function deployedLoginEnv(options: { dynamoDbEndpoint: string; table: string; extra?: Record<string, string> }): Promise<Record<string, string | undefined>> {
  return withLiftedLoginLimits({
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: 'passlane-login',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    POWERTOOLS_SERVICE_NAME: 'passlane',
    ...options.extra,
    DYNAMODB_ENDPOINT: options.dynamoDbEndpoint,
    PASSLANE_TABLE: options.table,
    PASSLANE_JWT_ISSUER: 'https://bench.execute-api.us-east-1.amazonaws.com',
    PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(await generateSigningKey('RS256')),
    PASSLANE_PEPPER_KEYS: `bench1:${randomBytes(32).toString('base64')}`,
    PASSLANE_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
    PASSLANE_MFA_KEYS: `bench1:${randomBytes(32).toString('base64')}`,
  });
}

/** An API Gateway HTTP API (payload 2.0) event, as `POST /login` or `POST /token` delivers it. */
export function httpEvent(path: string, body: string, sourceIp: string): LambdaHttpEvent {
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: `POST ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', 'user-agent': 'passlane-bench' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'bench',
      domainName: 'bench.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'bench',
      http: { method: 'POST', path, protocol: 'HTTP/1.1', sourceIp, userAgent: 'passlane-bench' },
      requestId,
      routeKey: `POST ${path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body,
    isBase64Encoded: false,
  } as LambdaHttpEvent;
}

/** What the Lambda runtime hands the handler; the function's timeout is 10 s (serverless.yml). */
export function lambdaContext() {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'passlane-bench',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:passlane-bench',
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '1024',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/passlane-bench',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A `--name N` option: a whole number, at least 1, or `fallback` where it is not given. */
export function positiveOption(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number, at least 1`);
  return value;
}

export interface MeasuredBatch {
  cpuMs: number[];
  wallMs: number[];
  /** How many answers had each status. */
  statuses: Record<string, number>;
  /** The first answer that was not `expected`: its status and what `lastError` said then. */
  unexpected?: string;
}

/**
 * `n` runs of `operation` (which answers an HTTP status), one after another, each's CPU and wall
 * time. process.cpuUsage is the whole process: the libuv threads running the hash are included.
 */
export async function measureBatch(
  n: number,
  operation: () => Promise<number>,
  expected: number,
  lastError: () => string,
  /** Set-up before each run, outside its CPU and wall time (a TOTP login's used step, reset). */
  before?: () => Promise<void>,
): Promise<MeasuredBatch> {
  let unexpected: string | undefined;
  const cpuMs: number[] = [];
  const wallMs: number[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    await before?.();
    const cpu = process.cpuUsage();
    const start = performance.now();
    const status = await operation();
    wallMs.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpuMs.push((used.user + used.system) / 1000);
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status !== expected) unexpected ??= `${status} ${lastError()}`.trim();
  }
  return { cpuMs, wallMs, statuses, ...(unexpected !== undefined && { unexpected }) };
}
