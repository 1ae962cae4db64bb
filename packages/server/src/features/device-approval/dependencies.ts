import type { Audit } from '../../accounts/audit-events.js';
import type { FailureTiming } from '../../accounts/failure-timing.js';
import type { EmailFingerprint } from '../../accounts/fingerprint.js';
import type { AttemptLimits } from '../../accounts/settings.js';
import type { AccountMail } from '../../mail/account-mail.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { DeviceApprovalStore } from '../../storage/device-approval-store.js';
import type { RateLimitStore } from '../../storage/rate-limit-store.js';
import type { SessionStore } from '../../storage/session-store.js';
import type { SessionConfig } from '../sessions/settings.js';
import type { DeviceApprovalConfig } from './settings.js';

/** POST /devices/approval (request-device-approval.ts). */
export interface DeviceApprovalRequestDependencies {
  users: Pick<AccountStore, 'getUserByEmail'>;
  /** The account's epoch, which a password change moves on (it voids the approval). */
  sessions: Pick<SessionStore, 'read'>;
  counters: Pick<RateLimitStore, 'hit'>;
  deviceApprovals: Pick<DeviceApprovalStore, 'put'>;
  mail: Pick<AccountMail, 'deviceApproval'>;
  deviceApproval: DeviceApprovalConfig;
  fingerprint: EmailFingerprint;
  /** The per-source limit on requests. */
  rateLimits: Pick<AttemptLimits, 'perSource' | 'windowSeconds'>;
  audit: Audit;
  /** Pads every answer to the slowest seen, so the mail's round trip tells no known address from an unknown one. */
  replyTiming?: FailureTiming;
  now: () => Date;
}

/** POST /devices/approval/confirm (approve-device.ts). */
export interface DeviceApprovalConfirmDependencies {
  deviceApprovals: Pick<DeviceApprovalStore, 'read' | 'consume' | 'reserveClientCheck'>;
  sessions: Pick<SessionStore, 'read' | 'addDevice'>;
  /** How long a device is remembered and how many an account keeps (features/sessions/settings.ts). */
  sessionConfig: Pick<SessionConfig, 'deviceSeconds' | 'devicesPerAccount'>;
  deviceApproval: DeviceApprovalConfig;
  audit: Audit;
  now: () => Date;
}

/**
 * The device approval routes, served together (by the recovery function on Lambda: the same
 * needs, a mail sender, the fingerprint key, one-time items and the sessions item).
 */
export type DeviceApprovalDependencies = DeviceApprovalRequestDependencies & DeviceApprovalConfirmDependencies;

/** The device approval routes' service. */
export interface DeviceApprovalServices {
  deviceApproval(): Promise<DeviceApprovalDependencies>;
}
