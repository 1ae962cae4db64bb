/** The token from `Authorization: Bearer <token>` (scheme case-insensitive, RFC 7235), or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '');
  return match?.[1];
}
