import { formatItemToken, newSecret, newSessionId, parseItemToken, secretHash } from './refresh-token.js';

/**
 * Device tokens (OWASP's "device cookies"): a client that once logged in to an account holds
 * `<account key>.<device id>.<secret>`, and its later logins to that account are counted per
 * device instead of against the account-wide ceiling and the per-source limits, so a stranger's
 * failures cannot lock it out (packages/server/src/features/login/LIMITS.md). The same shape and sizes as a refresh
 * token (refresh-token.ts): the ids say where the device is stored (the account's sessions
 * item), the secret is 256 random bits kept only as its SHA-256.
 */
export interface DeviceToken {
  /** The email fingerprint that keys the account's sessions item. */
  accountKey: string;
  deviceId: string;
  secret: Uint8Array<ArrayBuffer>;
}

const ACCOUNT_KEY = /^[0-9a-f]{16}$/;
const DEVICE_ID = /^[A-Za-z0-9_-]{22}$/;

/** At most this many presented tokens are looked at (a client may send a cookie per account it uses). */
export const MAX_PRESENTED_DEVICE_TOKENS = 8;

/** The cookie a browser keeps it in: one per account, so a browser used for two accounts keeps both. */
export function deviceCookieName(accountKey: string): string {
  return `${DEVICE_COOKIE_PREFIX}${accountKey}`;
}

/** `__Host-`: Secure, Path=/ and no Domain, so no sibling host can set or read it. */
export const DEVICE_COOKIE_PREFIX = '__Host-passlane-device-';

export function newDeviceToken(accountKey: string): DeviceToken {
  return { accountKey, deviceId: newSessionId(), secret: newSecret() };
}

export function formatDeviceToken({ accountKey, deviceId, secret }: DeviceToken): string {
  return formatItemToken({ accountKey, id: deviceId, secret });
}

/** The token's parts, or undefined for anything that is not one of ours. */
export function parseDeviceToken(token: unknown): DeviceToken | undefined {
  const parts = parseItemToken(token);
  return parts && { accountKey: parts.accountKey, deviceId: parts.id, secret: parts.secret };
}

/** What the store keeps of a device's secret. */
export const deviceSecretHash = secretHash;

/** The public id of a device (what GET /sessions lists and DELETE /devices/{id} takes). */
export function publicDeviceId(accountKey: string, deviceId: string): string {
  return `${accountKey}.${deviceId}`;
}

export function parsePublicDeviceId(value: unknown): { accountKey: string; deviceId: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const [accountKey, deviceId, ...rest] = value.split('.');
  if (rest.length > 0 || !ACCOUNT_KEY.test(accountKey ?? '') || !DEVICE_ID.test(deviceId ?? '')) return undefined;
  return { accountKey: accountKey!, deviceId: deviceId! };
}
