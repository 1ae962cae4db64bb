import * as v from 'valibot';
import { emailField } from '../../accounts/request-fields.js';
import { seconds } from '../sessions/session-schemas.js';

/** POST /devices/approval's body. */
export const DeviceApprovalRequest = v.object({
  email: emailField,
});

/** POST /devices/approval's answer: the same for every well-formed email. */
export const DeviceApprovalAsked = v.pipe(
  v.strictObject({
    status: v.literal('accepted'),
    clientSecret: v.pipe(
      v.string(),
      v.description('Opaque; this client\'s half of the approval: send it back as `clientSecret` with the mailed link\'s token (browsers keep it in a cookie and need not).'),
    ),
    expiresIn: seconds('Seconds the approval can be used.'),
  }),
  v.description('The same answer whether or not an account has the email, and whether or not a mail was sent.'),
);

/**
 * POST /devices/approval/confirm's body. Any other value than a string is taken as none, which
 * the use case refuses as it refuses a wrong one (`invalid_token`), never as a bad request.
 */
export const DeviceApprovalConfirmation = v.object({
  token: v.fallback(v.pipe(v.string(), v.description('The token of the approval link: what follows `#token=`.')), ''),
  clientSecret: v.optional(
    v.pipe(
      v.unknown(),
      v.metadata({ type: 'string' }),
      v.description('The `clientSecret` POST /devices/approval answered, for clients that keep no cookies.'),
    ),
  ),
});

/** POST /devices/approval/confirm's answer: the approved client's device token, as a good login answers it. */
export const DeviceApproved = v.object({
  deviceToken: v.pipe(v.string(), v.description('Opaque; present it at the next logins of this account, as a login\'s `deviceToken` (the cookie does it for browsers).')),
  deviceExpiresIn: seconds('Seconds the device is remembered unless a good login presents it before.'),
});
