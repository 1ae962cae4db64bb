/**
 * The events API Gateway sends a Lambda authorizer, and the answers it expects. Events are read
 * as untrusted input: a direct invoke, a misconfigured trigger or a missing header must become a
 * denial, never a crash. Nothing here keeps or returns the token beyond handing it to the check.
 */
import { bearerToken } from '../../api/bearer-token.js';

/**
 * - `http-api`: an HTTP API authorizer, payload 2.0, answered with a simple response.
 * - `rest`: a REST API TOKEN or REQUEST authorizer (and an HTTP API one with payload 1.0, whose
 *   event has the same shape), answered with an IAM policy.
 * - `unknown`: anything else.
 */
export type AuthorizerRequest =
  | { kind: 'http-api'; accessToken?: string; requestId?: string }
  | { kind: 'rest'; accessToken?: string; requestId?: string; methodArn?: string }
  | { kind: 'unknown' };

type Loose = Record<string, unknown>;
const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export function readAuthorizerEvent(event: unknown): AuthorizerRequest {
  if (!isObject(event)) return { kind: 'unknown' };
  const requestId = isObject(event.requestContext) ? text(event.requestContext.requestId) : undefined;
  const withRequestId = requestId === undefined ? {} : { requestId };
  if (event.version === '2.0' && event.type === 'REQUEST') {
    return { kind: 'http-api', ...withToken(authorizationHeader(event.headers)), ...withRequestId };
  }
  if (event.type === 'TOKEN' || event.type === 'REQUEST') {
    // TOKEN: `authorizationToken` is the identity source's value (the Authorization header).
    const header = event.type === 'TOKEN' ? text(event.authorizationToken) : authorizationHeader(event.headers);
    const methodArn = text(event.methodArn);
    return { kind: 'rest', ...withToken(header), ...withRequestId, ...(methodArn !== undefined && { methodArn }) };
  }
  return { kind: 'unknown' };
}

function withToken(header: string | undefined): { accessToken?: string } {
  const accessToken = bearerToken(header);
  return accessToken === undefined ? {} : { accessToken };
}

/** Header names arrive lower-cased from HTTP APIs and as sent from REST APIs. */
function authorizationHeader(headers: unknown): string | undefined {
  if (!isObject(headers)) return undefined;
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === 'authorization') return text(value);
  return undefined;
}

/** What the protected route's integration sees (`requestContext.authorizer.lambda` on an HTTP API, `.authorizer` on REST). */
export interface AuthorizerContext {
  /** The user id (the token's `sub`). */
  sub: string;
  /** The public session id (the token's `sid`), e.g. to offer "sign out this device". */
  sid: string;
}

export interface SimpleAuthorizerResponse {
  isAuthorized: boolean;
  context?: AuthorizerContext;
}

export interface PolicyAuthorizerResponse {
  principalId: string;
  policyDocument: { Version: '2012-10-17'; Statement: Array<{ Action: 'execute-api:Invoke'; Effect: 'Allow' | 'Deny'; Resource: string }> };
  context: AuthorizerContext;
}

export function simpleResponse(context: AuthorizerContext | undefined): SimpleAuthorizerResponse {
  return context === undefined ? { isAuthorized: false } : { isAuthorized: true, context };
}

/**
 * An Allow for every method and path of the stage the request came to: the verdict is about the
 * token, not the route, and a REST API caches the policy per token (with a TTL above 0), so a
 * policy naming only this method would deny the token's next request to another route.
 */
export function allowPolicy(methodArn: string, context: AuthorizerContext): PolicyAuthorizerResponse {
  return {
    principalId: context.sub,
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageWildcard(methodArn) }] },
    context,
  };
}

/** `arn:aws:execute-api:<region>:<account>:<api>/<stage>/<method>/<path>` -> `.../<api>/<stage>/*`. */
export function stageWildcard(methodArn: string): string {
  const [api, stage] = methodArn.split('/');
  return api !== undefined && stage !== undefined && api.startsWith('arn:') ? `${api}/${stage}/*` : methodArn;
}

/**
 * A REST API's denial: the error message API Gateway turns into 401 Unauthorized (an explicit
 * Deny policy would be 403). 401 because the token, not the caller's rights, is the problem:
 * the client should refresh it or sign in again.
 */
export const REST_UNAUTHORIZED = 'Unauthorized';
