import type { AccountEndReason, Actor } from '../../accounts/audit-events.js';
import { TemporarilyUnavailableError } from '../../accounts/errors.js';
import { SessionsChangedError, type PurgeOptions } from '../../storage/session-store.js';
import type { AccountLifecycleDependencies } from './dependencies.js';

/** Purges lost to logins, refreshes or other purges of the account before giving up (each re-reads). */
const MAX_PURGE_ATTEMPTS = 3;

/**
 * Every session of the account ends and every known device is forgotten, in one write that moves
 * the sessions item's epoch on (session-store.ts `purge`, as a password change's): a login that
 * read before cannot add a session after. `options` marks the item disabled (or clears the mark)
 * and sets its expiry in the same write. The counts ended.
 */
export async function endAccountSessions(
  deps: Pick<AccountLifecycleDependencies, 'sessions' | 'audit'>,
  input: { accountKey: string; userId: string; reason: AccountEndReason; actor: Actor; options?: PurgeOptions },
): Promise<{ sessions: number; devices: number }> {
  for (let attempt = 1; attempt <= MAX_PURGE_ATTEMPTS; attempt++) {
    const read = await deps.sessions.read(input.accountKey);
    // Another account's sessions in the item (a fingerprint collision, 1 in 2^64) are kept as they are.
    const keep = [...read.sessions.values()].filter((session) => session.userId !== input.userId).map((session) => session.sessionId);
    const keepDevices = [...read.devices.values()].filter((device) => device.userId !== input.userId).map((device) => device.deviceId);
    try {
      await deps.sessions.purge(read, keep, keepDevices, input.options);
    } catch (error) {
      if (!(error instanceof SessionsChangedError)) throw error;
      continue;
    }
    const sessions = read.sessions.size - keep.length;
    const devices = read.devices.size - keepDevices.length;
    if (sessions > 0) deps.audit({ type: 'auth.sessions_ended', userId: input.userId, count: sessions, reason: input.reason, actor: input.actor });
    if (devices > 0) deps.audit({ type: 'auth.devices_forgotten', userId: input.userId, count: devices, reason: input.reason, actor: input.actor });
    return { sessions, devices };
  }
  throw new TemporarilyUnavailableError(1);
}
