import { parse, serialize } from 'hono/utils/cookie';
import { parseOneTimeToken } from '../recovery/one-time-token.js';
import { MAX_PRESENTED_CLIENT_SECRETS } from './client-secret.js';

/**
 * The asking client's secret as HTTP carries it: a browser keeps it in a `__Host-` cookie per
 * account (HttpOnly, Secure, SameSite=Strict, as the device cookie: no script reads it, no other
 * site sends it, no sibling host sets it), so the approval page posts the link's token and the
 * browser adds the secret by itself; other clients send the answer's `clientSecret` back in the
 * body. The use case is given both and picks the one of the account.
 */
export const APPROVAL_COOKIE_PREFIX = '__Host-passlane-approval-';

export function presentedClientSecrets(request: Request, field: unknown): string[] {
  const secrets: string[] = [];
  if (typeof field === 'string') secrets.push(field);
  const header = request.headers.get('cookie');
  if (header !== null) {
    for (const [name, value] of Object.entries(parse(header))) {
      if (name.startsWith(APPROVAL_COOKIE_PREFIX)) secrets.push(value);
    }
  }
  return secrets.slice(0, MAX_PRESENTED_CLIENT_SECRETS);
}

/** The Set-Cookie value keeping the client secret for as long as the approval can be used. */
export function approvalCookie(clientSecret: string, maxAgeSeconds: number): string | undefined {
  const parsed = parseOneTimeToken(clientSecret);
  if (parsed === undefined) return undefined;
  // serialize() enforces the __Host- prefix's rules (Secure, Path=/, no Domain).
  return serialize(`${APPROVAL_COOKIE_PREFIX}${parsed.accountKey}`, clientSecret, { path: '/', secure: true, httpOnly: true, sameSite: 'Strict', maxAge: maxAgeSeconds });
}
