import { publicDeviceId } from './device-token.js';
import { publicSessionId } from './refresh-token.js';
import { isKnownDevice, isLive } from '../../storage/session-store.js';
import type { AuthenticatedSession } from './authenticate-session.js';
import type { SessionManagementDependencies } from './dependencies.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';

/** What GET /sessions shows of a session: never a token or a hash. */
export interface SessionSummary {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  /** When it ends unless refreshed before (the idle timeout, within the absolute lifetime). */
  expiresAt: string;
  /** The network it was started from (IPv4 /24, IPv6 /48), when known. */
  network?: string;
  /** The browser or client family. */
  client: string;
  /** The session of the access token that asked. */
  current: boolean;
}

/** What GET /sessions shows of a known device (packages/server/src/features/sessions/device-token.ts): never its token. */
export interface DeviceSummary {
  id: string;
  createdAt: string;
  /** Its last good login. */
  lastUsedAt: string;
  /** When it is forgotten unless a good login presents it before. */
  expiresAt: string;
  network?: string;
  client: string;
  /** The device the asking session was started from. */
  current: boolean;
}

/** GET /sessions: the account's live sessions and known devices, newest first. */
export async function listSessions(
  deps: SessionManagementDependencies,
  request: { caller: AuthenticatedSession },
): Promise<{ sessions: SessionSummary[]; devices: DeviceSummary[] }> {
  const now = deps.now();
  const { caller } = request;
  const nowSeconds = epochSeconds(now);
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  const sessions = [...caller.read.sessions.values()]
    .filter((session) => session.userId === caller.userId && isLive(session, nowSeconds))
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((session) => ({
      id: publicSessionId(caller.accountKey, session.sessionId),
      createdAt: iso(session.createdAt),
      lastUsedAt: iso(session.lastUsedAt),
      expiresAt: iso(Math.min(session.idleExpiresAt, session.expiresAt)),
      ...(session.network !== undefined && { network: session.network }),
      client: session.client,
      current: session.sessionId === caller.session.sessionId,
    }));
  const devices = [...caller.read.devices.values()]
    .filter((device) => device.userId === caller.userId && isKnownDevice(device, nowSeconds))
    .sort((a, b) => b.lastUsedAt - a.lastUsedAt)
    .map((device) => ({
      id: publicDeviceId(caller.accountKey, device.deviceId),
      createdAt: iso(device.createdAt),
      lastUsedAt: iso(device.lastUsedAt),
      expiresAt: iso(device.expiresAt),
      ...(device.network !== undefined && { network: device.network }),
      client: device.client,
      current: device.deviceId === caller.session.deviceId,
    }));
  return { sessions, devices };
}
