import type { HttpResponse } from './http-types.js';

/**
 * Auth responses carry tokens or account state: never cached by browsers or proxies
 * (RFC 6749 §5.1 requires no-store for token responses). Public, cacheable responses
 * (the JWKS) pass their own Cache-Control.
 */
const DEFAULT_HEADERS = { 'cache-control': 'no-store' };

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    statusCode,
    headers: { ...DEFAULT_HEADERS, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

export function noContent(): HttpResponse {
  return { statusCode: 204, headers: { ...DEFAULT_HEADERS }, body: '' };
}

export function errorResponse(
  statusCode: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): HttpResponse {
  return jsonResponse(statusCode, { error: { code, message } }, headers);
}
