import { DEFAULT_DEVICE_APPROVAL_CONFIG, type DeviceApprovalConfig } from '../features/device-approval/settings.js';
import { wholeNumber, type Env } from './env.js';

export function readDeviceApprovalConfig(env: Env): DeviceApprovalConfig {
  const d = DEFAULT_DEVICE_APPROVAL_CONFIG;
  return {
    // At most an hour: the link is for the device in the owner's hand now.
    tokenSeconds: wholeNumber(env, 'PASSLANE_DEVICE_APPROVAL_TTL_S', { fallback: d.tokenSeconds, min: 60, max: 3600 }),
    mailsPerAccountPerHour: wholeNumber(env, 'PASSLANE_DEVICE_APPROVAL_MAILS_PER_HOUR', { fallback: d.mailsPerAccountPerHour, min: 1, max: 100 }),
    wrongClientLimit: d.wrongClientLimit,
  };
}
