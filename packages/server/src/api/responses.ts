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

export function toWebResponse(response: ApiResponse): Response {
  return new Response(response.body ?? null, { status: response.status, headers: response.headers });
}
