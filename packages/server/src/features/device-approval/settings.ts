/**
 * Device approval by mail (reasons in README.md here). config/device-approval-config.ts reads
 * them from the environment; in code, spread DEFAULT_DEVICE_APPROVAL_CONFIG.
 */
export interface DeviceApprovalConfig {
  /** How long an approval link works (PASSLANE_DEVICE_APPROVAL_TTL_S). */
  tokenSeconds: number;
  /** Approval mails per account per hour (PASSLANE_DEVICE_APPROVAL_MAILS_PER_HOUR). */
  mailsPerAccountPerHour: number;
  /** Other clients that may present a link before it is voided. */
  wrongClientLimit: number;
}

/**
 * - Links work 15 minutes: the owner asks and reads the mail at once, on the device that asked;
 *   a short life leaves little time to a link read in a mailbox by someone else.
 * - 3 mails per account per hour, as reset links: enough for "I did not get it", too few to flood
 *   a mailbox (a stranger who knows the address can spend them too: README.md, "Limits").
 * - 5 other clients presenting a link void it: the client secret has 256 bits, so this only stops
 *   a link opened in the wrong browser over and over.
 */
export const DEFAULT_DEVICE_APPROVAL_CONFIG: Readonly<DeviceApprovalConfig> = {
  tokenSeconds: 900,
  mailsPerAccountPerHour: 3,
  wrongClientLimit: 5,
};
