/**
 * What a route answers, before its host makes it a response of its own: the status, the headers
 * and the body's JSON text (none for 204). Hosts that hand web-standard Responses on (Workers,
 * node:http, Deno, Bun) get one from toWebResponse; the Lambda host, which must return the body as
 * a string, skips the stream a web Response builds for it (ApiHost.respond).
 */
export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Auth responses carry tokens or account state: never cached by browsers or proxies
 * (RFC 6749 §5.1 requires no-store for token responses). Public, cacheable responses (the JWKS)
 * pass their own Cache-Control.
 */
const NO_STORE = { 'cache-control': 'no-store' };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers: { ...NO_STORE, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

export function noContent(): ApiResponse {
  return { status: 204, headers: { ...NO_STORE } };
}

/** `{"error":{"code","message"}}`, with `reason` inside `error` where the code has one (`password_rejected`). */
export function errorResponse(status: number, code: string, message: string, headers: Record<string, string> = {}, reason?: string): ApiResponse {
  return jsonResponse(status, { error: { code, message, ...(reason !== undefined && { reason }) } }, headers);
}

/**
 * RFC 6749 §5.1: a token endpoint's answers are never cached, and say so to HTTP/1.0 caches too
 * (`Pragma: no-cache` beside `Cache-Control: no-store`), errors included.
 */
export const TOKEN_ENDPOINT_HEADERS = { pragma: 'no-cache' };

/**
 * RFC 6749 §5.2's flat `{"error","error_description"}`: what OAuth 2.0 clients read at a token
 * endpoint. The description is the error's message, kept to the characters §5.2 allows
 * (printable ASCII but `"` and `\`), since a message may quote a request's parameter name.
 */
export function oauthErrorResponse(status: number, error: string, description: string, headers: Record<string, string> = {}): ApiResponse {
  return jsonResponse(status, { error, error_description: description.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '?') }, { ...TOKEN_ENDPOINT_HEADERS, ...headers });
}

export function toWebResponse(response: ApiResponse): Response {
  return new Response(response.body ?? null, { status: response.status, headers: response.headers });
}
