import { parse, serialize } from 'hono/utils/cookie';

/**
 * Secrets a client presents in two ways: other clients in a body field, browsers in `__Host-`
 * cookies named `<prefix><account key>` (one per account they hold one for). Only a string in the
 * field counts; at most `max` are taken, so a request cannot make the use case check many.
 */
export function presentedSecrets(request: Request, field: unknown, prefix: string, max: number): string[] {
  const secrets: string[] = [];
  if (typeof field === 'string') secrets.push(field);
  const header = request.headers.get('cookie');
  if (header !== null) {
    for (const [name, value] of Object.entries(parse(header))) {
      if (name.startsWith(prefix)) secrets.push(value);
    }
  }
  return secrets.slice(0, max);
}

/**
 * The Set-Cookie value keeping a secret in the browser: HttpOnly, Secure, SameSite=Strict, Path=/
 * (no script reads it, no other site sends it, no sibling host sets it). serialize() enforces the
 * `__Host-` prefix's rules (Secure, Path=/, no Domain). `Lax` and `None` are for a cookie that must
 * come back on another site's navigation to us (a provider's redirect: `Lax`; its form post:
 * `None`), which must then prove something on its own (features/federation/README.md).
 */
export function hostCookie(name: string, value: string, maxAgeSeconds: number, sameSite: 'Strict' | 'Lax' | 'None' = 'Strict'): string {
  return serialize(name, value, { path: '/', secure: true, httpOnly: true, sameSite, maxAge: maxAgeSeconds });
}

/** The value of one cookie the request carries, by its exact name; undefined when absent. */
export function cookieValue(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  return header === null ? undefined : parse(header, name)[name];
}
