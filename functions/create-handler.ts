import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { AppDependencies } from '../src/app/create-auth-dependencies.js';
import { bearerToken } from '../src/http/bearer-token.js';
import { httpErrorHandler } from '../src/http/error-handler.js';
import type { HttpRequest, HttpResponse, LambdaHttpEvent } from '../src/http/http-types.js';
import { jsonBody } from '../src/http/json-body.js';
import { httpRequestOf, normaliseHttpEvent } from '../src/http/normalise-event.js';
import { requireMethod } from '../src/http/require-method.js';
import { jsonResponse, noContent } from '../src/http/responses.js';
import { logger } from '../src/observability/logger.js';
import { metrics } from '../src/observability/metrics.js';
import { appendRequestLogKeys } from '../src/observability/request-log-keys.js';
import { JWKS_MAX_AGE_SECONDS } from '../src/tokens/jwks.js';
import { openIdConfiguration } from '../src/tokens/openid-configuration.js';
import type { PublicTokenService } from '../src/tokens/token-service.js';
import type { RegisterDependencies } from '../src/use-cases/dependencies.js';
import { changePassword } from '../src/use-cases/change-password.js';
import { login } from '../src/use-cases/login.js';
import { register } from '../src/use-cases/register.js';

/** Called per invocation; the real one builds once per container (src/app), tests pass their own. */
export type GetDependencies<T = AppDependencies> = () => Promise<T>;

/** The JWKS handler needs only the token service's public keys. */
export type GetJwksSource = GetDependencies<Pick<PublicTokenService, 'jwks'>>;

export function createRegisterHandler(getDeps: GetDependencies<RegisterDependencies>) {
  return httpHandler({ method: 'POST', json: true }, async (request) =>
    jsonResponse(201, await register(await getDeps(), { body: request.body, sourceIp: request.sourceIp })),
  );
}

export function createLoginHandler(getDeps: GetDependencies) {
  return httpHandler({ method: 'POST', json: true }, async (request) =>
    jsonResponse(200, await login(await getDeps(), { body: request.body, sourceIp: request.sourceIp })),
  );
}

export function createPasswordHandler(getDeps: GetDependencies) {
  return httpHandler({ method: 'POST', json: true }, async (request) => {
    const accessToken = bearerToken(request.headers);
    await changePassword(await getDeps(), { accessToken, body: request.body, sourceIp: request.sourceIp });
    return noContent();
  });
}

export function createJwksHandler(getTokens: GetJwksSource) {
  return httpHandler({ method: 'GET', json: false }, async () =>
    jsonResponse(200, (await getTokens()).jwks(), { 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` }),
  );
}

/** Where API Gateway's JWT authorizer looks first: `<issuer>/.well-known/openid-configuration`. */
export function createOpenIdConfigurationHandler(getTokens: GetDependencies<Pick<PublicTokenService, 'jwks' | 'issuer'>>) {
  return httpHandler({ method: 'GET', json: false }, async (request) => {
    const origin = `${request.headers['x-forwarded-proto'] ?? 'https'}://${request.headers.host ?? 'localhost'}`;
    return jsonResponse(200, openIdConfiguration(await getTokens(), origin), { 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` });
  });
}

/**
 * The middleware stack every function shares; see src/http/README.md for the order and why.
 * `before` runs top to bottom, `after` and `onError` bottom to top.
 */
function httpHandler(
  route: { method: string; json: boolean },
  handle: (request: HttpRequest) => Promise<HttpResponse>,
) {
  const handler = middy<LambdaHttpEvent, HttpResponse>(async (event: LambdaHttpEvent) => handle(httpRequestOf(event)))
    // logEvent: false even if POWERTOOLS_LOGGER_LOG_EVENT is set: the event holds passwords.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(logMetrics(metrics))
    .use(httpHeaderNormalizer())
    .use(normaliseHttpEvent())
    .use(appendRequestLogKeys(logger))
    .use(httpErrorHandler({ logger }))
    .use(requireMethod(route.method));
  return route.json ? handler.use(jsonBody()) : handler;
}
