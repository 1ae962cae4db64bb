import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError } from './http-errors.js';
import type { HttpRequest, LambdaHttpEvent } from './http-types.js';

/**
 * The normalised request is kept beside the event (keyed by the event object) rather than written
 * into it: the AWS event keeps its documented shape, and handlers get one typed view of v1, v2
 * and Function URL events alike.
 */
const requests = new WeakMap<object, HttpRequest>();

export function httpRequestOf(event: object): HttpRequest {
  const request = requests.get(event);
  if (request === undefined) throw new Error('normaliseHttpEvent middleware is missing from the stack');
  return request;
}

/**
 * Builds the normalised request. Runs after @middy/http-header-normalizer, but lower-cases
 * header names itself too, so it is correct on its own.
 */
export function normaliseHttpEvent(): MiddlewareObj<LambdaHttpEvent> {
  return {
    before: (request) => {
      requests.set(request.event, normaliseEvent(request.event));
    },
  };
}

export function normaliseEvent(event: LambdaHttpEvent): HttpRequest {
  if (isV2(event)) {
    const { http, requestId } = event.requestContext;
    return {
      method: http.method.toUpperCase(),
      path: event.rawPath || http.path,
      headers: lowerCaseHeaders(event.headers),
      rawBody: decodeBody(event.body, event.isBase64Encoded),
      sourceIp: http.sourceIp || undefined,
      requestId: requestId || undefined,
    };
  }
  if (isV1(event)) {
    return {
      method: event.httpMethod.toUpperCase(),
      path: event.path,
      headers: lowerCaseHeaders(event.headers, event.multiValueHeaders),
      rawBody: decodeBody(event.body, event.isBase64Encoded),
      sourceIp: event.requestContext?.identity?.sourceIp || undefined,
      requestId: event.requestContext?.requestId || undefined,
    };
  }
  // A direct invoke or a misrouted trigger: refuse it as a bad request rather than crash.
  throw new HttpError(400, 'invalid_request', 'not an API Gateway or Function URL HTTP event');
}

function isV2(event: unknown): event is APIGatewayProxyEventV2 {
  const context = (event as { requestContext?: { http?: { method?: unknown } } } | null)?.requestContext;
  return typeof context?.http?.method === 'string';
}

function isV1(event: unknown): event is APIGatewayProxyEvent {
  return typeof (event as { httpMethod?: unknown } | null)?.httpMethod === 'string';
}

function lowerCaseHeaders(
  headers: Record<string, string | undefined> | null | undefined,
  multiValueHeaders?: Record<string, string[] | undefined> | null,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value === 'string') result[name.toLowerCase()] = value;
  }
  // REST API keeps only the last value in `headers`; the full list is in multiValueHeaders.
  for (const [name, values] of Object.entries(multiValueHeaders ?? {})) {
    if (Array.isArray(values) && values.length > 0) result[name.toLowerCase()] = values.join(', ');
  }
  return result;
}

function decodeBody(body: string | null | undefined, isBase64Encoded: boolean | undefined): Uint8Array | undefined {
  if (body === null || body === undefined) return undefined;
  return isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
}
