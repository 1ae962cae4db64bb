/**
 * The AWS Lambda host of the access check for other APIs (functions/authorizer.ts): API Gateway
 * authorizer events in, its answers out, with the Powertools logger's Lambda context. How each
 * kind of API is answered, and why, is in infra/README.md ("Lambda authorizer").
 *
 * - HTTP API (payload 2.0, simple responses): `{ isAuthorized, context: { sub, sid } }`.
 * - REST API (TOKEN or REQUEST): an Allow policy with the same context, or a thrown
 *   `Unauthorized`, which API Gateway answers with 401.
 * - Anything else: `{ isAuthorized: false }` and a warning, never a crash.
 * - Storage or configuration failing: a thrown error, so API Gateway answers 500 and caches
 *   nothing; access is never granted without the check.
 *
 * The token is never logged: not the event (`logEvent: false`), not in a message or a field.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context as LambdaContext } from 'aws-lambda';
import { logger } from '../../observability/logger.js';
import { onceUntilFailure } from '../../shared/once-until-failure.js';
import { safeErrorFields } from '../../observability/safe-error.js';
import { authorizeAccess, type AccessDecision, type AuthorizeAccessDependencies } from '../../features/sessions/authorize-access.js';
import {
  allowPolicy,
  readAuthorizerEvent,
  REST_UNAUTHORIZED,
  simpleResponse,
  type AuthorizerRequest,
  type PolicyAuthorizerResponse,
  type SimpleAuthorizerResponse,
} from './authorizer-events.js';

export type AuthorizerResponse = SimpleAuthorizerResponse | PolicyAuthorizerResponse;

/** Thrown when the check could not be made (API Gateway: 500). Says nothing about the request. */
export class AuthorizerUnavailableError extends Error {
  readonly code = 'ERR_AUTHORIZER_UNAVAILABLE';

  constructor() {
    super('the access check could not be made');
    this.name = 'AuthorizerUnavailableError';
  }
}

/** One function's handler; `build` runs on first use and its dependencies are kept for the container (with its verdict cache). */
export function lambdaAuthorizer(build: () => Promise<AuthorizeAccessDependencies>) {
  const dependencies = onceUntilFailure(build);
  return middy<unknown, AuthorizerResponse>(async (event: unknown, _context: LambdaContext) => {
    const request = readAuthorizerEvent(event);
    if (request.kind === 'unknown') {
      logger.warn('access denied: not an API Gateway authorizer event');
      return simpleResponse(undefined);
    }
    if (request.requestId !== undefined) logger.appendKeys({ requestId: request.requestId });
    return answer(request, await decide(dependencies, request.accessToken));
  })
    // logEvent: false even if POWERTOOLS_LOGGER_LOG_EVENT is set: the event holds the token.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }));
}

async function decide(dependencies: () => Promise<AuthorizeAccessDependencies>, accessToken: string | undefined): Promise<AccessDecision> {
  try {
    return await authorizeAccess(await dependencies(), accessToken);
  } catch (error) {
    logger.error('access check failed', { error: safeErrorFields(error) });
    throw new AuthorizerUnavailableError();
  }
}

function answer(request: Exclude<AuthorizerRequest, { kind: 'unknown' }>, decision: AccessDecision): AuthorizerResponse {
  const { kind } = request;
  if (!decision.allowed) {
    logger.info('access denied', { kind, reason: decision.reason, ...(decision.tokenProblem && { tokenProblem: decision.tokenProblem }), cached: decision.cached === true });
    if (kind === 'http-api') return simpleResponse(undefined);
    throw new Error(REST_UNAUTHORIZED);
  }
  logger.debug('access allowed', { kind, userId: decision.userId, cached: decision.cached });
  const context = { sub: decision.userId, sid: decision.sessionId };
  if (kind === 'http-api') return simpleResponse(context);
  if (request.methodArn === undefined) {
    logger.warn('access denied: a REST authorizer event without methodArn', { kind });
    throw new Error(REST_UNAUTHORIZED);
  }
  return allowPolicy(request.methodArn, context);
}
