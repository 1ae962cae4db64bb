import { deviceSecretHash, MAX_PRESENTED_DEVICE_TOKENS, parseDeviceToken } from './device-token.js';
import { sameHash } from './refresh-token.js';
import { isKnownDevice, type AccountSessions, type StoredDevice } from '../../storage/session-store.js';

/** A device the account knows, as read, with the token that proved it. */
export interface KnownDevice {
  device: StoredDevice;
  token: string;
}

/**
 * Which of the presented device tokens (a body field, cookies) belongs to this account and is
 * still remembered, from the sessions item the login already read: no request of its own. A
 * token of another account, a forgotten or revoked device, or a wrong secret is no device, and
 * that login is held to the ordinary limits (LIMITS.md).
 */
export function knownDevice(
  sessions: AccountSessions,
  userId: string | undefined,
  presented: readonly string[] | undefined,
  nowSeconds: number,
): KnownDevice | undefined {
  if (userId === undefined || presented === undefined) return undefined;
  for (const token of presented.slice(0, MAX_PRESENTED_DEVICE_TOKENS)) {
    const parsed = parseDeviceToken(token);
    if (parsed?.accountKey !== sessions.accountKey) continue;
    const device = sessions.devices.get(parsed.deviceId);
    if (device === undefined || device.userId !== userId || !isKnownDevice(device, nowSeconds)) continue;
    if (sameHash(deviceSecretHash(parsed.secret), device.tokenHash)) return { device, token };
  }
  return undefined;
}
