import { parsePublicDeviceId } from './device-token.js';
import { parsePublicSessionId } from './refresh-token.js';
import { isKnownDevice, isLive, SessionsChangedError, type AccountSessions } from '../../storage/session-store.js';
import type { DeviceForgetReason, SessionEndReason } from '../../accounts/audit-events.js';
import type { AuthenticatedSession } from './authenticate-session.js';
import type { EndOtherSessionsDependencies, SessionManagementDependencies } from './dependencies.js';
import { DeviceNotFoundError, InvalidRequestError, SessionNotFoundError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';

export type LogoutScope = 'local' | 'others' | 'global';
export const LOGOUT_SCOPES: readonly LogoutScope[] = ['local', 'others', 'global'];

export interface LogoutRequest {
  /** The token's session (its route's `authenticate`). */
  caller: AuthenticatedSession;
  /** `local` (default): this session; `others`: every other session of the account; `global`: all of them. */
  scope?: string;
}

/**
 * POST /logout: ends this session, the others, or all of the account's sessions. Signing the
 * others out also forgets every known device but this session's, and signing out everywhere
 * forgets them all: whoever is signed out loses what a known device spares them (LIMITS.md).
 */
export async function logout(deps: SessionManagementDependencies, request: LogoutRequest): Promise<void> {
  const scope = request.scope ?? 'local';
  if (!(LOGOUT_SCOPES as readonly string[]).includes(scope)) {
    throw new InvalidRequestError(`scope must be one of ${LOGOUT_SCOPES.join(', ')}`, 'scope');
  }
  const { caller } = request;
  const mine = sessionIdsOf(caller.read, caller.userId);
  const ids = scope === 'local' ? [caller.session.sessionId] : scope === 'others' ? mine.filter((id) => id !== caller.session.sessionId) : mine;
  const myDevices = deviceIdsOf(caller.read, caller.userId);
  const devices = scope === 'local' ? [] : scope === 'others' ? myDevices.filter((id) => id !== caller.session.deviceId) : myDevices;
  await deps.sessions.end(caller.read, ids, devices);
  const reason: SessionEndReason = scope === 'local' ? 'logout' : scope === 'others' ? 'logout_others' : 'logout_global';
  if (ids.length > 0) deps.audit({ type: 'auth.sessions_ended', userId: caller.userId, count: ids.length, reason });
  const forgotten: DeviceForgetReason = scope === 'others' ? 'logout_others' : 'logout_global';
  if (devices.length > 0) deps.audit({ type: 'auth.devices_forgotten', userId: caller.userId, count: devices.length, reason: forgotten });
}

/** DELETE /sessions/{id}: ends one of the caller's account's sessions (its own too). */
export async function deleteSession(deps: SessionManagementDependencies, request: { caller: AuthenticatedSession; id: string }): Promise<void> {
  const { caller } = request;
  const target = parsePublicSessionId(request.id);
  const session = target?.accountKey === caller.accountKey ? caller.read.sessions.get(target.sessionId) : undefined;
  const nowSeconds = epochSeconds(deps.now());
  // Another account's session and an ended one look the same: not found.
  if (session === undefined || session.userId !== caller.userId || !isLive(session, nowSeconds)) throw new SessionNotFoundError();
  await deps.sessions.end(caller.read, [session.sessionId]);
  deps.audit({ type: 'auth.sessions_ended', userId: caller.userId, count: 1, reason: 'deleted' });
}

/** DELETE /devices/{id}: forgets one of the caller's account's known devices (its sessions go on: end them from the list). */
export async function deleteDevice(deps: SessionManagementDependencies, request: { caller: AuthenticatedSession; id: string }): Promise<void> {
  const { caller } = request;
  const target = parsePublicDeviceId(request.id);
  const device = target?.accountKey === caller.accountKey ? caller.read.devices.get(target.deviceId) : undefined;
  const nowSeconds = epochSeconds(deps.now());
  // Another account's device and a forgotten one look the same: not found.
  if (device === undefined || device.userId !== caller.userId || !isKnownDevice(device, nowSeconds)) throw new DeviceNotFoundError();
  await deps.sessions.end(caller.read, [], [device.deviceId]);
  deps.audit({ type: 'auth.devices_forgotten', userId: caller.userId, count: 1, reason: 'deleted' });
}

/** Attempts at a purge that keeps losing to refreshes of the kept session or to other purges. */
const MAX_PURGE_ATTEMPTS = 3;

/**
 * After a password change (or a factor undone from the owner's mailbox: `reason`): every session of the account but `keep` ends, and every known device
 * but the one `keep` was started from is forgotten (a device token a thief got with the old
 * password must not spare them the limits while they guess the new one). The store replaces
 * the account's sessions and devices with the kept ones and moves the epoch on, so a login
 * decided on the old password cannot leave a session behind (session-store.ts `purge`).
 */
export async function endOtherSessions(
  deps: EndOtherSessionsDependencies,
  input: { accountKey: string; userId: string; keep?: string; reason?: 'password_changed' | 'factor_undone' | 'email_changed' | 'email_change_undone' },
): Promise<void> {
  const reason = input.reason ?? 'password_changed';
  for (let attempt = 1; attempt <= MAX_PURGE_ATTEMPTS; attempt++) {
    const read = await deps.sessions.read(input.accountKey);
    const mine = sessionIdsOf(read, input.userId);
    // Other accounts' sessions in the item (a fingerprint collision, 1 in 2^64) are kept as they are.
    const others = [...read.sessions.values()].filter((session) => session.userId !== input.userId).map((session) => session.sessionId);
    const keep = [...others, ...mine.filter((id) => id === input.keep)];
    const keptDevice = input.keep === undefined ? undefined : read.sessions.get(input.keep)?.deviceId;
    const otherDevices = [...read.devices.values()].filter((device) => device.userId !== input.userId).map((device) => device.deviceId);
    const myDevices = deviceIdsOf(read, input.userId);
    try {
      await deps.sessions.purge(read, keep, [...otherDevices, ...myDevices.filter((id) => id === keptDevice)]);
      const ended = mine.length - (input.keep !== undefined && mine.includes(input.keep) ? 1 : 0);
      if (ended > 0) deps.audit({ type: 'auth.sessions_ended', userId: input.userId, count: ended, reason });
      const forgotten = myDevices.length - (keptDevice !== undefined && myDevices.includes(keptDevice) ? 1 : 0);
      if (forgotten > 0) deps.audit({ type: 'auth.devices_forgotten', userId: input.userId, count: forgotten, reason });
      return;
    } catch (error) {
      if (!(error instanceof SessionsChangedError)) throw error;
    }
  }
  throw new TemporarilyUnavailableError(1);
}

/** Every known device of the account in the item, remembered or not (forgetting a forgotten one tidies the item). */
function deviceIdsOf(read: AccountSessions, userId: string): string[] {
  return [...read.devices.values()].filter((device) => device.userId === userId).map((device) => device.deviceId);
}

/** Every session of the account in the item, live or not (ending an ended one tidies the item). */
function sessionIdsOf(read: AccountSessions, userId: string): string[] {
  return [...read.sessions.values()].filter((session) => session.userId === userId).map((session) => session.sessionId);
}
