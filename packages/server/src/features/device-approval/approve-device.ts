import { parseOneTimeToken } from '../recovery/one-time-token.js';
import { deviceSecretHash, formatDeviceToken, newDeviceToken } from '../sessions/device-token.js';
import { secretHash } from '../sessions/refresh-token.js';
import { approximateNetwork, clientFamily } from '../sessions/session-origin.js';
import { devicesToForget } from '../sessions/start-session.js';
import { isAskingClient } from './client-secret.js';
import type { DeviceApprovalConfirmDependencies } from './dependencies.js';
import { ConcurrentUpdateError, InvalidOneTimeTokenError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { SessionsChangedError, type StoredDevice } from '../../storage/session-store.js';

/** The approved client's device token, as a good login answers it, and how long it is remembered unless used. */
export interface ApprovedDevice {
  deviceToken: string;
  deviceExpiresIn: number;
}

export interface ApproveDeviceInput {
  /** The mailed link's token (`#token=` of the link). */
  token: string;
  /** The client secrets the client presents (its cookies, a body field): one must be the asking client's. */
  clientSecrets: readonly string[];
  sourceIp?: string;
  userAgent?: string;
}

const MAX_ATTEMPTS = 3;

/**
 * POST /devices/approval/confirm: the mailed link and the asking client's secret together make
 * that client a known device of the account (its next logins are counted per device, not held to
 * the account-wide ceiling: packages/server/src/features/login/LIMITS.md). Either alone is
 * `invalid_token`: the link in another browser (counted: voided after a few), the secret without
 * the link. Single use (a conditional delete), short-lived, and void after a password change
 * since it was asked for. The device is written without a session, conditionally as a login's.
 */
export async function approveDevice(deps: DeviceApprovalConfirmDependencies, input: ApproveDeviceInput): Promise<ApprovedDevice> {
  const reject = (reason: DeviceApprovalRejection): never => {
    deps.audit({ type: 'auth.one_time_token_rejected', purpose: 'device_approval', reason });
    throw new InvalidOneTimeTokenError();
  };
  const nowSeconds = epochSeconds(deps.now());
  const token = parseOneTimeToken(input.token);
  if (token === undefined) return reject('malformed');
  const { accountKey } = token;
  const tokenHash = secretHash(token.secret);
  const stored = await deps.deviceApprovals.read(accountKey, tokenHash);
  // A stand-in for an email without an account was never mailed: nobody can hold its link.
  if (stored?.accountUserId === undefined) return reject('unknown');
  if (stored.expiresAt <= nowSeconds) return reject('expired');
  // Counted before the comparison (LIMITS.md, "Count before checking"): the link in other clients is compared a few times at most.
  const checks = await deps.deviceApprovals.reserveClientCheck(accountKey, tokenHash, deps.deviceApproval.wrongClientLimit);
  if (checks === undefined) return reject('used');
  if (!isAskingClient(accountKey, stored.clientHash, input.clientSecrets)) {
    // The last check it allowed: the approval is void.
    if (checks >= deps.deviceApproval.wrongClientLimit) await deps.deviceApprovals.consume(accountKey, tokenHash);
    return reject('wrong_client');
  }
  if (!(await deps.deviceApprovals.consume(accountKey, tokenHash))) return reject('used');
  const device = approvedDevice(accountKey, stored.accountUserId, input, nowSeconds, deps.sessionConfig.deviceSeconds);
  if (!(await addDevice(deps, accountKey, stored.epoch, device.value, nowSeconds))) return reject('stale');
  deps.audit({ type: 'auth.device_approved', userId: stored.accountUserId });
  return { deviceToken: device.token, deviceExpiresIn: deps.sessionConfig.deviceSeconds };
}

type DeviceApprovalRejection = 'malformed' | 'unknown' | 'expired' | 'wrong_client' | 'used' | 'stale';

/** A new known device for the approved client, as a login's first one is made (start-session.ts); its token is answered once, here. */
function approvedDevice(accountKey: string, userId: string, input: ApproveDeviceInput, nowSeconds: number, deviceSeconds: number): { value: StoredDevice; token: string } {
  const token = newDeviceToken(accountKey);
  const network = approximateNetwork(input.sourceIp);
  const value: StoredDevice = {
    deviceId: token.deviceId,
    userId,
    tokenHash: deviceSecretHash(token.secret),
    createdAt: nowSeconds,
    lastUsedAt: nowSeconds,
    expiresAt: nowSeconds + deviceSeconds,
    client: clientFamily(input.userAgent),
    ...(network !== undefined && { network }),
    failures: 0,
    blockedUntil: 0,
  };
  return { value, token: formatDeviceToken(token) };
}

/**
 * Writes the device into the account's sessions item, forgetting those beyond the bound, on the
 * condition that the epoch is still the one the approval was asked under: false when a password
 * change (or reset) since then moved it on (it forgot the account's devices; this one must not
 * follow). A login that created the item meanwhile only makes it read again.
 */
async function addDevice(deps: DeviceApprovalConfirmDependencies, accountKey: string, epoch: number, device: StoredDevice, nowSeconds: number): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const read = await deps.sessions.read(accountKey);
    if (read.epoch !== epoch) return false;
    try {
      await deps.sessions.addDevice(read, device, devicesToForget(read, device.deviceId, nowSeconds, deps.sessionConfig));
      return true;
    } catch (error) {
      if (!(error instanceof SessionsChangedError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new ConcurrentUpdateError();
    }
  }
}
