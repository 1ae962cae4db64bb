/**
 * Auth responses carry tokens or account state: never cached by browsers or proxies
 * (RFC 6749 §5.1 requires no-store for token responses). Public, cacheable responses (the JWKS)
 * pass their own Cache-Control.
 */
const NO_STORE = { 'cache-control': 'no-store' };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...NO_STORE, 'content-type': 'application/json', ...headers } });
}

export function noContent(): Response {
  return new Response(null, { status: 204, headers: NO_STORE });
}

/** `{"error":{"code","message"}}`, with `reason` inside `error` where the code has one (`password_rejected`). */
export function errorResponse(status: number, code: string, message: string, headers: Record<string, string> = {}, reason?: string): Response {
  return jsonResponse(status, { error: { code, message, ...(reason !== undefined && { reason }) } }, headers);
}
