/** The token from `Authorization: Bearer <token>` (scheme case-insensitive, RFC 7235), or undefined. */
export function bearerToken(headers: Record<string, string>): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(headers.authorization ?? '');
  return match?.[1];
}
