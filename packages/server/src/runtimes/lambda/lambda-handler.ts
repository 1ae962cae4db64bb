/**
 * The AWS Lambda host: API Gateway HTTP API (payload 2.0), REST API (1.0) and Function URL events
 * become `app.fetch` calls through hono's Lambda adapter. middy stays at the Lambda boundary for
 * Powertools: the logger's Lambda context and the EMF metrics flush. Bodies go in and out
 * without a stream (streamlessBodies, text-response.ts), one of the fast paths
 * PASSLANE_LAMBDA_FAST_PATHS=off turns off (fast-paths.ts).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context as LambdaContext, LambdaFunctionURLEvent } from 'aws-lambda';
import { getConnInfo, handle } from 'hono/aws-lambda';
import { createApi, respondToError } from '../../api/create-api.js';
import { FALLBACK_RETRY_AFTER_SECONDS } from '../../api/error-table.js';
import { mapError, toErrorResponse } from '../../api/map-error.js';
import type { ApiResponse } from '../../api/responses.js';
import type { AnyRoute } from '../../api/route.js';
import type { CorsConfig } from '../../api/settings.js';
import { readCorsConfig } from '../../config/cors-config.js';
import { apiLog, logger } from '../../observability/logger.js';
import { metrics } from '../../observability/metrics.js';
import { InvalidRequestError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { onceUntilFailure } from '../../shared/once-until-failure.js';
import { readLambdaFastPaths } from './fast-paths.js';
import { lambdaEnv } from './lambda-env.js';
import { streamlessBodies } from './text-response.js';

// The secrets' loader, for a handler of one's own (its reader of the environment: lambda-env.ts).
export { loadSecrets, SecretLoadError, SecretsUnavailableError, type SecretSource } from './load-secrets.js';

export type LambdaHttpEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2 | LambdaFunctionURLEvent;

/** The subset of a proxy result all three integrations accept; `body` always a string (REST API requires one). */
export interface LambdaHttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
  /** Payload 2.0 (HTTP API, Function URL): Set-Cookie values, which it does not take as headers. */
  cookies?: string[];
}

/** What the origin reads of the env hono's Lambda adapter passes the app (streamlessBodies reads its `event`). */
interface HonoLambdaEnv {
  requestContext?: { requestId?: string; authorizer?: { iam?: { userArn?: string } } };
}

/**
 * One function's handler for the given routes (one route per function in serverless.yml, so each
 * function keeps its own permissions and secrets). Each of `services` is built on its first use
 * and kept for the container's life (a failed build is not kept: the next invocation tries
 * again), so a cold start pays only for what its route touches (each entry in functions/ names
 * its services, e.g. functions/login.ts). The
 * origins browsers may call it from are PASSLANE_CORS_ORIGINS unless given: read at the cold
 * start, so a bad value fails it, as every setting does.
 */
export function lambdaHandler<S extends object>(routes: readonly AnyRoute<S>[], services: S, options: { cors?: CorsConfig } = {}) {
  const streamless = readLambdaFastPaths(lambdaEnv()) ? streamlessBodies() : undefined;
  const built = builtOnce(services);
  const cors = options.cors ?? readCorsConfig(lambdaEnv());
  const app = createApi(routes, {
    services: () => built,
    cors: () => cors,
    origin: (c) => {
      // getConnInfo: the event's requestContext.http.sourceIp (payload 2.0) or .identity.sourceIp
      // (1.0), which API Gateway sets from the connection; the `before` below refuses other events.
      const context = (c.env as HonoLambdaEnv | undefined)?.requestContext;
      const requestId = context?.requestId;
      // Set by API Gateway (or a Function URL) only after its AWS_IAM authorization: the operator API's identity.
      const principal = context?.authorizer?.iam?.userArn;
      return { sourceIp: getConnInfo(c).remote.address || undefined, requestId: requestId || undefined, ...(principal && { principal }) };
    },
    ...(streamless !== undefined && { body: streamless.body, respond: streamless.respond }),
    log: apiLog,
  });
  const serve = handle(app);
  // What fails around the app (not an HTTP event, middy's timeout) is answered in its routes' error body (POST /token's is OAuth's).
  const errorBody = routes.length > 0 && routes.every((route) => route.errorBody === 'oauth') ? 'oauth' : 'api';
  return (
    middy<LambdaHttpEvent, LambdaHttpResponse>(async (event: LambdaHttpEvent, context: LambdaContext) => {
      return singleValueHeaders(await serve((streamless === undefined ? event : streamless.withoutBody(event)) as unknown as Parameters<typeof serve>[0], context));
    })
      // logEvent: false even if POWERTOOLS_LOGGER_LOG_EVENT is set: the event holds passwords.
      .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
      .use(logMetrics(metrics))
      .use({
        before: ({ event }) => {
          // A direct invoke or a misrouted trigger: a clear `invalid_request` rather than a crash in the adapter.
          if (!isHttpEvent(event)) return toLambdaResponse(toErrorResponse(mapError(new InvalidRequestError('not an API Gateway or Function URL HTTP event'), errorBody), errorBody));
          // API Gateway's request id (the one in its access logs and clients' reports) on every line.
          logger.appendKeys({ requestId: event.requestContext?.requestId });
          return undefined;
        },
        onError: (request) => {
          // middy aborts just before the Lambda timeout (storage or hasher too slow): "try again", not `internal_error`.
          const response = isMiddyTimeout(request.error)
            ? respondToError(new TemporarilyUnavailableError(FALLBACK_RETRY_AFTER_SECONDS, { cause: request.error }), { route: 'unknown' }, apiLog, errorBody)
            : respondToError(request.error, { route: 'unknown' }, apiLog, errorBody);
          // Set, not returned: a returned value would skip the remaining onError cleanup (logger keys, metrics flush).
          request.response = toLambdaResponse(response);
        },
      })
  );
}

/** Each service of `services` built on first use and kept (onceUntilFailure). */
function builtOnce<S extends object>(services: S): S {
  const entries = Object.entries(services).map(([name, build]) => [name, typeof build === 'function' ? onceUntilFailure(build as () => Promise<unknown>) : build]);
  return Object.fromEntries(entries) as S;
}

function isHttpEvent(event: unknown): event is LambdaHttpEvent {
  const candidate = event as { httpMethod?: unknown; requestContext?: { http?: { method?: unknown } } } | null;
  return typeof candidate?.httpMethod === 'string' || typeof candidate?.requestContext?.http?.method === 'string';
}

/**
 * hono answers REST API events with `multiValueHeaders`; one shape for all three keeps callers
 * simple. Set-Cookie is the exception: payload 2.0 takes it only as `cookies`, kept as hono made
 * it, and a REST API's one Set-Cookie (the login's device cookie) becomes a header.
 */
function singleValueHeaders(result: {
  statusCode: number;
  body: string;
  isBase64Encoded?: boolean;
  headers?: Record<string, string | string[]>;
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
}): LambdaHttpResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...result.headers, ...result.multiValueHeaders })) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    statusCode: result.statusCode,
    headers,
    body: result.body,
    ...(result.isBase64Encoded && { isBase64Encoded: true }),
    ...(result.cookies !== undefined && { cookies: result.cookies }),
  };
}

/** An answer made outside hono (a non-HTTP event, a middy timeout), as the Lambda response. */
function toLambdaResponse(answer: ApiResponse): LambdaHttpResponse {
  return { statusCode: answer.status, headers: { ...answer.headers }, body: answer.body ?? '' };
}

function isMiddyTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError' && (error.cause as { package?: unknown } | undefined)?.package === '@middy/core';
}
