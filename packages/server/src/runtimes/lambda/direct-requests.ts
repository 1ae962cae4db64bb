import {
  ConditionalCheckFailedException,
  DynamoDBServiceException,
  InternalServerError,
  InvalidEndpointException,
  ItemCollectionSizeLimitExceededException,
  ProvisionedThroughputExceededException,
  ReplicatedWriteConflictException,
  RequestLimitExceeded,
  ResourceNotFoundException,
  ThrottlingException,
  TransactionConflictException,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * One of the Lambda platform's fast paths (fast-paths.ts switches them on, and
 * PASSLANE_LAMBDA_FAST_PATHS=off off): the item operations the functions make on every request (the login's read and session write,
 * registration's put, ...), sent by a short path instead of the SDK's full one, which spends
 * CPU on per-request work these operations do not need (schema serde, endpoint rules,
 * auth-scheme selection, user agent, its middleware chain); docs/measurements.md ("Login CPU") has what
 * it saves. DynamoDB's wire format is plain JSON whose shapes are the commands' inputs and
 * outputs, so a command's `input` is the body and the parsed answer is its output.
 *
 * It is an SDK middleware, the last of the initialize step: callers still send SDK commands,
 * middleware that runs before it (a test's call recorder or fault injection) still sees each
 * call, and what it does not serve goes on down the SDK's stack. What it keeps of the SDK is
 * what matters to get right: the client's own credentials (the default chain: the Lambda role),
 * region, endpoint rules, HTTP handler (keep-alive sockets, connection and request timeouts) and
 * retry strategy (the same backoff and client-wide retry quota as every other call of the
 * client), and AWS's SigV4 signer. The rest is ~100 lines: build the request, read the answer,
 * name the error. What it reads of the SDK's internals (ResolvedConfig below, the middleware
 * step, the @smithy packages) is pinned by test/direct-requests-sdk-pin.test.ts, which fails on
 * an SDK upgrade that changes any of it; that the SDK still hands each middleware a
 * call's `abortSignal` (SMITHY_CONTEXT_KEY below), test/direct-requests.test.ts.
 *
 * Left to the SDK: every other operation (table management, Scan, transactions). Not
 * reproduced: clock-skew correction, Retry-After hints, account-based endpoints (the SDK's
 * `<account>.ddb.<region>` hosts, which it picks when the credentials carry an account id; the
 * regional endpoint used here serves every account). A call with per-call options that carries an
 * `abortSignal` goes down the SDK's own path, which honours it. Errors are the SDK's own classes
 * (`instanceof ConditionalCheckFailedException` holds), with the answer's fields on them as the
 * SDK puts them (`Item` of ReturnValuesOnConditionCheckFailure).
 */
const DIRECT_OPERATIONS: ReadonlySet<string> = new Set(['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query']);

const TARGET_PREFIX = 'DynamoDB_20120810.';
const MIDDLEWARE_NAME = 'passlaneDirectRequests';
/** What CloudTrail's data events show for these calls. */
const USER_AGENT = 'passlane (direct item requests)';

/** The subset of the SDK's resolved client configuration used here (all of it resolved by the SDK). */
interface ResolvedConfig {
  region: () => Promise<string>;
  endpoint?: () => Promise<{ protocol: string; hostname: string; port?: number; path: string }>;
  credentials: ConstructorParameters<typeof SignatureV4>[0]['credentials'];
  sha256: ConstructorParameters<typeof SignatureV4>[0]['sha256'];
  endpointProvider: (params: { Region: string; UseFIPS: boolean; UseDualStack: boolean }) => { url: URL };
  useFipsEndpoint: () => Promise<boolean>;
  useDualstackEndpoint: () => Promise<boolean>;
  systemClockOffset?: number;
  requestHandler: { handle(request: HttpRequest): Promise<{ response: HttpResponse }> };
  streamCollector: (body: unknown) => Promise<Uint8Array>;
  retryStrategy: () => Promise<RetryStrategy>;
}

interface HttpRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

interface HttpResponse {
  statusCode: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

interface RetryToken {
  getRetryCount(): number;
  getRetryDelay(): number;
}

interface RetryStrategy {
  acquireInitialRetryToken(scope: string): Promise<RetryToken>;
  refreshRetryTokenForRetry(token: RetryToken, info: { errorType: RetryErrorType; error: unknown }): Promise<RetryToken>;
  recordSuccess(token: RetryToken): void;
}

type RetryErrorType = 'THROTTLING' | 'TRANSIENT' | 'SERVER_ERROR';

interface Target {
  signer: SignatureV4;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  host: string;
}

type ServiceErrorClass = new (options: { message: string; $metadata: ServiceErrorMetadata } & Record<string, unknown>) => DynamoDBServiceException;

interface ServiceErrorMetadata {
  httpStatusCode: number;
  requestId?: string;
  attempts: number;
}

/**
 * The SDK's exception classes for the errors DIRECT_OPERATIONS can answer, by DynamoDB's name
 * (its `__type` after the `#`); other names become a DynamoDBServiceException of that name, as
 * the SDK's own deserialiser does for errors it has no class for.
 */
const SERVICE_ERRORS: ReadonlyMap<string, ServiceErrorClass> = new Map<string, ServiceErrorClass>([
  ['ConditionalCheckFailedException', ConditionalCheckFailedException],
  ['InternalServerError', InternalServerError],
  ['InvalidEndpointException', InvalidEndpointException],
  ['ItemCollectionSizeLimitExceededException', ItemCollectionSizeLimitExceededException],
  ['ProvisionedThroughputExceededException', ProvisionedThroughputExceededException],
  ['ReplicatedWriteConflictException', ReplicatedWriteConflictException],
  ['RequestLimitExceeded', RequestLimitExceeded],
  ['ResourceNotFoundException', ResourceNotFoundException],
  ['ThrottlingException', ThrottlingException],
  ['TransactionConflictException', TransactionConflictException],
] as [string, ServiceErrorClass][]);

/** The key of the per-call context the SDK gives each middleware (`SMITHY_CONTEXT_KEY` in @smithy/types). */
const SMITHY_CONTEXT_KEY = '__smithy_context';

/**
 * Serves DIRECT_OPERATIONS of this client by the short path: the one switch, turned on for the
 * Lambda functions' clients (fast-paths.ts). Call once per client, before its first request.
 */
export function sendItemRequestsDirectly(client: DynamoDBClient): void {
  const config = client.config as unknown as ResolvedConfig;
  // Resolved at the first request, once per client (again after a failure).
  let target: Promise<Target> | undefined;

  type Next = (args: { input: object }) => Promise<unknown>;
  type Context = { commandName?: string; [SMITHY_CONTEXT_KEY]?: { abortSignal?: unknown } };
  const middleware = (next: Next, context: Context) => async (args: { input: object }) => {
    const operation = context.commandName?.slice(0, -'Command'.length);
    if (operation === undefined || !DIRECT_OPERATIONS.has(operation)) return next(args);
    // Cancellable calls (none of the stores' own) are the SDK's to cancel.
    if (context[SMITHY_CONTEXT_KEY]?.abortSignal !== undefined) return next(args);
    target ??= resolveTarget(config).catch((error: unknown) => {
      target = undefined;
      throw error;
    });
    const output = await sendWithRetries(config, await target, operation, args.input);
    return { output, response: undefined };
  };
  client.middlewareStack.add(middleware as never, { step: 'initialize', priority: 'low', name: MIDDLEWARE_NAME });
}

async function resolveTarget(config: ResolvedConfig): Promise<Target> {
  const region = await config.region();
  const { protocol, hostname, port, path } = config.endpoint === undefined ? await regionalEndpoint(config, region) : await config.endpoint();
  const signer = new SignatureV4({ service: 'dynamodb', region, credentials: config.credentials, sha256: config.sha256, uriEscapePath: true });
  return { signer, protocol, hostname, port, path, host: port === undefined ? hostname : `${hostname}:${port}` };
}

/** The SDK's own endpoint rules: the region's partition (amazonaws.com.cn, ...), FIPS and dual-stack. */
async function regionalEndpoint(config: ResolvedConfig, region: string) {
  const { url } = config.endpointProvider({ Region: region, UseFIPS: await config.useFipsEndpoint(), UseDualStack: await config.useDualstackEndpoint() });
  return { protocol: url.protocol, hostname: url.hostname, port: url.port === '' ? undefined : Number(url.port), path: url.pathname };
}

async function sendWithRetries(config: ResolvedConfig, target: Target, operation: string, input: object): Promise<object> {
  const body = JSON.stringify(input, binaryAsBase64);
  const strategy = await config.retryStrategy();
  let token = await strategy.acquireInitialRetryToken('dynamodb');
  for (;;) {
    try {
      const output = await sendOnce(config, target, operation, body, token.getRetryCount() + 1);
      strategy.recordSuccess(token);
      return output;
    } catch (error) {
      const errorType = retryErrorType(error);
      if (errorType === undefined) throw error;
      try {
        token = await strategy.refreshRetryTokenForRetry(token, { errorType, error });
      } catch {
        throw error; // attempts or the retry quota spent: the last error is the answer
      }
      await new Promise((resolve) => setTimeout(resolve, token.getRetryDelay()));
    }
  }
}

async function sendOnce(config: ResolvedConfig, target: Target, operation: string, body: string, attempt: number): Promise<object> {
  const request: HttpRequest = {
    method: 'POST',
    protocol: target.protocol,
    hostname: target.hostname,
    ...(target.port !== undefined && { port: target.port }),
    path: target.path,
    query: {},
    headers: {
      host: target.host,
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': TARGET_PREFIX + operation,
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': USER_AGENT,
    },
    body,
  };
  const signed = (await target.signer.sign(request as never, { signingDate: new Date(Date.now() + (config.systemClockOffset ?? 0)) })) as unknown as HttpRequest;
  const { response } = await config.requestHandler.handle(signed);
  const bytes = await config.streamCollector(response.body);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const requestId = response.headers['x-amzn-requestid'];
  const status = response.statusCode;
  const parsed = parseAnswer(text);
  if (status >= 200 && status < 300 && parsed !== undefined) {
    return { ...parsed, $metadata: { httpStatusCode: status, requestId, attempts: attempt } };
  }
  throw serviceError(status, requestId, parsed, attempt);
}

/** `{"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": ...}` */
function serviceError(status: number, requestId: string | undefined, body: Record<string, unknown> | undefined, attempt: number): DynamoDBServiceException {
  const { __type: type, message, Message, ...fields } = body ?? {};
  const name = typeof type === 'string' && type !== '' ? type.slice(type.indexOf('#') + 1) : status >= 500 ? 'InternalServerError' : 'UnknownError';
  const text = typeof message === 'string' ? message : typeof Message === 'string' ? Message : `HTTP ${status}`;
  const $metadata: ServiceErrorMetadata = { httpStatusCode: status, requestId, attempts: attempt };
  const known = SERVICE_ERRORS.get(name);
  const error =
    known !== undefined
      ? new known({ message: text, $metadata, ...fields })
      : new DynamoDBServiceException({ name, message: text, $fault: status >= 500 ? 'server' : 'client', $metadata });
  // The answer's other fields (`Item`, `CancellationReasons`), also where a class names none of
  // them: what the SDK's decorateServiceException does.
  for (const [field, value] of Object.entries(fields)) if ((error as unknown as Record<string, unknown>)[field] === undefined) (error as unknown as Record<string, unknown>)[field] = value;
  return error;
}

/** The SDK's own classification (what its retry middleware asks); undefined: not worth a retry. */
function retryErrorType(error: unknown): RetryErrorType | undefined {
  if (!(error instanceof Error)) return undefined;
  const classified = error as Parameters<typeof isThrottlingError>[0];
  if (isThrottlingError(classified)) return 'THROTTLING';
  if (isTransientError(classified)) return 'TRANSIENT';
  if (isServerError(classified)) return 'SERVER_ERROR';
  return undefined;
}

/** A B or BS attribute value somewhere in an answer (DynamoDB writes its JSON without spaces). */
const BINARY_VALUE = /"BS?":/;

/** The answer's JSON, or undefined when it is not JSON (a proxy's error page). */
function parseAnswer(text: string): Record<string, unknown> | undefined {
  if (text === '') return {};
  try {
    // The reviver triples the parse's cost, so only for an answer that may hold binary values.
    return JSON.parse(text, BINARY_VALUE.test(text) ? base64AsBinary : undefined) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** DynamoDB JSON carries B and BS as base64; the SDK's shapes hold bytes. */
function binaryAsBase64(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Uint8Array ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') : value;
}

function base64AsBinary(key: string, value: unknown): unknown {
  if (key === 'B' && typeof value === 'string') return new Uint8Array(Buffer.from(value, 'base64'));
  if (key === 'BS' && Array.isArray(value)) return value.map((entry) => (typeof entry === 'string' ? new Uint8Array(Buffer.from(entry, 'base64')) : entry));
  return value;
}
