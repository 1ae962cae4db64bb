import { hostCookie, presentedSecrets } from '../../api/host-cookies.js';
import { DEVICE_COOKIE_PREFIX, deviceCookieName, MAX_PRESENTED_DEVICE_TOKENS, parseDeviceToken } from '../sessions/device-token.js';

/**
 * A login's device tokens (packages/server/src/features/sessions/device-token.ts) as HTTP carries them: a browser keeps
 * each in a `__Host-` cookie (HttpOnly, Secure, SameSite=Strict: no script reads it, no other
 * site sends it, no sibling host sets it), other clients send the login answer's `deviceToken`
 * back as the body's `deviceToken`. The use case is given both and picks the one of the account.
 */
export function presentedDeviceTokens(request: Request, field: unknown): string[] {
  return presentedSecrets(request, field, DEVICE_COOKIE_PREFIX, MAX_PRESENTED_DEVICE_TOKENS);
}

/** The Set-Cookie value keeping a device token in the browser for as long as the device is remembered. */
export function deviceCookie(token: string, maxAgeSeconds: number): string | undefined {
  const parsed = parseDeviceToken(token);
  return parsed === undefined ? undefined : hostCookie(deviceCookieName(parsed.accountKey), token, maxAgeSeconds);
}
