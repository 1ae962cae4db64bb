import { parse, serialize } from 'hono/utils/cookie';
import { DEVICE_COOKIE_PREFIX, deviceCookieName, MAX_PRESENTED_DEVICE_TOKENS, parseDeviceToken } from '../sessions/device-token.js';

/**
 * A login's device tokens (packages/server/src/features/sessions/device-token.ts) as HTTP carries them: a browser keeps
 * each in a `__Host-` cookie (HttpOnly, Secure, SameSite=Strict: no script reads it, no other
 * site sends it, no sibling host sets it), other clients send the login answer's `deviceToken`
 * back as the body's `deviceToken`. The use case is given both and picks the one of the account.
 */
export function presentedDeviceTokens(request: Request, field: unknown): string[] {
  const tokens: string[] = [];
  // Only a string is a token: another value in the field is no device, as no field is.
  if (typeof field === 'string') tokens.push(field);
  const header = request.headers.get('cookie');
  if (header !== null) {
    for (const [name, value] of Object.entries(parse(header))) {
      if (name.startsWith(DEVICE_COOKIE_PREFIX)) tokens.push(value);
    }
  }
  return tokens.slice(0, MAX_PRESENTED_DEVICE_TOKENS);
}

/** The Set-Cookie value keeping a device token in the browser for as long as the device is remembered. */
export function deviceCookie(token: string, maxAgeSeconds: number): string | undefined {
  const parsed = parseDeviceToken(token);
  if (parsed === undefined) return undefined;
  // serialize() enforces the __Host- prefix's rules (Secure, Path=/, no Domain).
  return serialize(deviceCookieName(parsed.accountKey), token, { path: '/', secure: true, httpOnly: true, sameSite: 'Strict', maxAge: maxAgeSeconds });
}
