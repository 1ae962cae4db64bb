import { deviceSecretHash, formatDeviceToken, newDeviceToken } from './device-token.js';
import { formatRefreshToken, newSecret, newSessionId, publicSessionId, secretHash } from './refresh-token.js';
import { approximateNetwork, clientFamily } from './session-origin.js';
import type { SessionConfig } from './settings.js';
import { isKnownDevice, isLive, type AccountSessions, type LoginCount, type StoredDevice, type StoredSession } from '../../storage/session-store.js';
import type { StartSessionDependencies } from './dependencies.js';
import type { KnownDevice } from './known-device.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { AccountEvent } from '../../events/account-event.js';

export interface StartedSession {
  /** The public id: the access token's `sid`. */
  sessionId: string;
  refreshToken: string;
  /** Seconds until the refresh token expires unless used (the idle timeout, within the absolute lifetime). */
  refreshExpiresIn: number;
  /** The login's device token (the one presented, or a new one) and how long it is remembered unless used. */
  device: { token: string; expiresIn: number };
  /** What its access tokens say of the login (`auth_time`, `amr`). */
  authentication: { authTime: Date; amr: readonly string[] };
}

export interface StartSessionInput {
  userId: string;
  /** What the session's access tokens say of the email (`email_verified`) until a verification updates it. */
  emailVerified?: boolean;
  /** The email fingerprint keying the account's sessions item. */
  accountKey: string;
  /** The sessions as read with the account: the write is conditional on them. */
  read: AccountSessions;
  sourceIp?: string;
  userAgent?: string;
  /** The known device the login presented; without one, the login makes the client a new one. */
  device?: KnownDevice;
  /** The account's good logins in this window, this one counted (login-guard.ts). */
  logins?: LoginCount;
  /** How the login authenticated (RFC 8176), when more than the password (`pwd`). */
  amr?: readonly string[];
  /** The account's address, kept in the session for the token hook's refreshes (only given while one is set). */
  email?: string;
  /**
   * The account events of this start (a sign-in event, when the deployment records them), made
   * from the new session's public id and `amr`: written in the session's own write.
   */
  events?: (started: { sessionId: string; amr: readonly string[] }) => readonly AccountEvent[];
  now: Date;
}

/**
 * A new session for a good login, with its device and the account's count of good logins: one
 * conditional write. Sessions and devices that have ended are dropped from the item, and when
 * the account already has as many live sessions (or known devices) as allowed the oldest end
 * (logins racing each other may each add one before the next trims: the bound holds up to the
 * number of concurrent logins). SessionsChangedError (from the store) means a password
 * change purged the sessions, or a first login created the item, since the read: the caller
 * reads again.
 */
export async function startSession(deps: StartSessionDependencies, input: StartSessionInput): Promise<StartedSession> {
  const nowSeconds = epochSeconds(input.now);
  const config = deps.sessionConfig;
  const evict = sessionsToEnd(input.read, input.userId, nowSeconds, config);
  const sessionId = newSessionId();
  const secret = newSecret();
  const network = approximateNetwork(input.sourceIp);
  const client = clientFamily(input.userAgent);
  const device = loginDevice(input, nowSeconds, config, client, network);
  const session: StoredSession = {
    sessionId,
    userId: input.userId,
    generation: 0,
    tokenHash: secretHash(secret),
    spent: [],
    createdAt: nowSeconds,
    lastUsedAt: nowSeconds,
    idleExpiresAt: nowSeconds + config.idleSeconds,
    expiresAt: nowSeconds + config.maxAgeSeconds,
    ...(network !== undefined && { network }),
    client,
    ...(input.emailVerified === true && { emailVerified: true }),
    refreshWindowStart: 0,
    refreshCount: 0,
    deviceId: device.value.deviceId,
    ...(input.amr !== undefined && { amr: [...input.amr] }),
    ...(input.email !== undefined && { email: input.email }),
  };
  const forgetDevices = devicesToForget(input.read, device.value.deviceId, nowSeconds, config);
  const publicId = publicSessionId(input.accountKey, sessionId);
  const authentication = sessionAuthentication(session);
  await deps.sessions.create(
    input.read,
    {
      session,
      evict: evict.all,
      device: { value: device.value, known: input.device !== undefined },
      forgetDevices,
      ...(input.logins !== undefined && { logins: input.logins }),
    },
    input.events?.({ sessionId: publicId, amr: authentication.amr }) ?? [],
  );
  if (evict.live > 0) deps.audit({ type: 'auth.sessions_ended', userId: input.userId, count: evict.live, reason: 'evicted' });
  return {
    sessionId: publicId,
    refreshToken: formatRefreshToken({ accountKey: input.accountKey, sessionId, secret }),
    refreshExpiresIn: refreshExpiresIn(session, nowSeconds),
    device: { token: device.token, expiresIn: config.deviceSeconds },
    authentication,
  };
}

/**
 * The device as this good login leaves it: the presented one remembered for longer with its
 * failures cleared, or a new one with a new secret (its token is answered once, here).
 */
function loginDevice(input: StartSessionInput, nowSeconds: number, config: SessionConfig, client: string, network: string | undefined): { value: StoredDevice; token: string } {
  const remembered = { lastUsedAt: nowSeconds, expiresAt: nowSeconds + config.deviceSeconds, failures: 0, blockedUntil: 0, client, ...(network !== undefined && { network }) };
  if (input.device !== undefined) return { value: { ...input.device.device, ...remembered }, token: input.device.token };
  const token = newDeviceToken(input.accountKey);
  const value: StoredDevice = { deviceId: token.deviceId, userId: input.userId, tokenHash: deviceSecretHash(token.secret), createdAt: nowSeconds, ...remembered };
  return { value, token: formatDeviceToken(token) };
}

/**
 * Forgotten devices still in the item, and the least recently used beyond the bound (one place is
 * kept for the login's, or for a device approved by mail: features/device-approval).
 */
export function devicesToForget(read: AccountSessions, keep: string, nowSeconds: number, config: Pick<SessionConfig, 'devicesPerAccount'>): string[] {
  const expired: string[] = [];
  const known: StoredDevice[] = [];
  for (const device of read.devices.values()) {
    if (device.deviceId === keep) continue;
    if (!isKnownDevice(device, nowSeconds)) expired.push(device.deviceId);
    else known.push(device);
  }
  const excess = known.length - (config.devicesPerAccount - 1);
  const oldest = excess > 0 ? known.sort((a, b) => a.lastUsedAt - b.lastUsedAt).slice(0, excess).map((d) => d.deviceId) : [];
  return [...expired, ...oldest];
}

/** Seconds until the session ends unless refreshed. */
export function refreshExpiresIn(session: StoredSession, nowSeconds: number): number {
  return Math.max(0, Math.min(session.idleExpiresAt, session.expiresAt) - nowSeconds);
}

/** Every ended session in the item, and this account's oldest live ones beyond the limit (one place is kept for the new one). */
function sessionsToEnd(read: AccountSessions, userId: string, nowSeconds: number, config: SessionConfig): { all: string[]; live: number } {
  const ended: string[] = [];
  const live: StoredSession[] = [];
  for (const session of read.sessions.values()) {
    if (!isLive(session, nowSeconds)) ended.push(session.sessionId);
    else if (session.userId === userId) live.push(session);
  }
  const excess = live.length - (config.perAccount - 1);
  const oldest = excess > 0 ? live.sort((a, b) => a.createdAt - b.createdAt).slice(0, excess).map((s) => s.sessionId) : [];
  return { all: [...ended, ...oldest], live: oldest.length };
}

/** What a session's access tokens say of its login: `auth_time` (the session's start) and `amr` (RFC 8176). */
export function sessionAuthentication(session: Pick<StoredSession, 'createdAt' | 'amr'>): { authTime: Date; amr: readonly string[] } {
  return { authTime: new Date(session.createdAt * 1000), amr: session.amr ?? PASSWORD_AMR };
}

/** A login with the password alone (RFC 8176 §2). */
export const PASSWORD_AMR: readonly string[] = ['pwd'];
/** A password and a one-time code (TOTP, or a recovery code: a one-time password too). */
export const PASSWORD_AND_OTP_AMR: readonly string[] = ['pwd', 'otp', 'mfa'];
