import { formatOneTimeToken, newOneTimeToken } from '../recovery/one-time-token.js';
import { mailFailureCode } from '../recovery/mail-failure.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { DeviceApprovalRequestDependencies } from './dependencies.js';
import { canonicalEmail } from '../../accounts/canonical-email.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';

/** What the asking client keeps: its half of the approval, and how long it is good for. */
export interface RequestedApproval {
  /** `<account key>.<secret>`: presented with the mailed link, it proves this is the client that asked. */
  clientSecret: string;
  expiresIn: number;
}

/**
 * POST /devices/approval: a client without a device token asks that the account's mailbox make
 * it a known device. The answer is the same (a fresh client secret), with the same writes and in
 * the same time, whether or not the account exists and whether or not a limit was reached: only
 * the mailbox's owner learns which (they get the mail). Limits per mailbox and per source are
 * silent, as for reset links.
 */
export async function requestDeviceApproval(deps: DeviceApprovalRequestDependencies, request: { email: string; sourceIp?: string }): Promise<RequestedApproval> {
  const email = canonicalEmail(request.email);
  const timing = deps.replyTiming?.start();
  const accountKey = deps.fingerprint(email);
  // Made whatever happens below, so every answer carries one.
  const client = newOneTimeToken(accountKey);
  const outcome = await sendApprovalIfAllowed(deps, email, accountKey, secretHash(client.secret), request.sourceIp);
  deps.audit({ type: 'auth.device_approval_requested', outcome, emailFingerprint: accountKey });
  await deps.replyTiming?.pad(timing?.done() ?? 0);
  return { clientSecret: formatOneTimeToken(client), expiresIn: deps.deviceApproval.tokenSeconds };
}

async function sendApprovalIfAllowed(deps: DeviceApprovalRequestDependencies, email: string, accountKey: string, clientHash: string, sourceIp: string | undefined) {
  const now = deps.now();
  const { perSource, windowSeconds } = deps.rateLimits;
  const [account, source, user, sessions] = await Promise.all([
    deps.counters.hit({ key: `device-approval#account#${accountKey}`, limit: deps.deviceApproval.mailsPerAccountPerHour, windowSeconds: 3600, now }),
    deps.counters.hit({ key: `device-approval#ip#${sourceKeyOf(sourceIp)}`, limit: perSource, windowSeconds, now }),
    deps.users.getUserByEmail(email),
    // Read for every email alike: an account's epoch binds the approval to its current password.
    deps.sessions.read(accountKey),
  ]);
  if (!account.allowed || !source.allowed) return 'rate_limited';
  const token = newOneTimeToken(accountKey);
  const expiresIn = deps.deviceApproval.tokenSeconds;
  // Written for an unknown email too, so that asking costs the same writes: without an account
  // and never mailed (nobody holds its link), it approves nothing and expires.
  await deps.deviceApprovals.put(accountKey, secretHash(token.secret), {
    clientHash,
    ...(user !== undefined && { accountUserId: user.userId }),
    epoch: sessions.epoch,
    expiresAt: epochSeconds(now) + expiresIn,
  });
  if (user === undefined) return 'unknown_account';
  try {
    return (await deps.mail.deviceApproval(email, formatOneTimeToken(token), expiresIn)) ?? 'sent';
  } catch (error) {
    // The same answer: a failure here would tell who has an account. The operator sees the metric.
    deps.audit({ type: 'auth.mail_failed', mail: 'device_approval', code: mailFailureCode(error) });
    return 'mail_failed';
  }
}
