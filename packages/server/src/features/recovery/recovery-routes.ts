import { confirmPasswordReset } from './confirm-password-reset.js';
import { requestPasswordReset } from './request-password-reset.js';
import { resendVerification, verifyEmail } from './verify-email.js';
import { bearerToken } from '../../api/bearer-token.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, noContent } from '../../api/responses.js';
import type { RecoveryServices } from './dependencies.js';

/** What every "maybe sent" answer says: the same body whether or not an account exists. */
export const ACCEPTED = { status: 'accepted' } as const;

/** POST /password/reset `{ email }` -> 202, whether or not the account exists. */
export const requestPasswordResetRoute = defineRoute<RecoveryServices>({
  name: 'password-reset',
  method: 'POST',
  path: '/password/reset',
  json: true,
  handle: async ({ body, origin, services }) => {
    await requestPasswordReset(await services.recovery(), { body, sourceIp: origin.sourceIp });
    return jsonResponse(202, ACCEPTED);
  },
});

/** POST /password/reset/confirm `{ token, newPassword }` -> 204; `invalid_token`. */
export const confirmPasswordResetRoute = defineRoute<RecoveryServices>({
  name: 'password-reset-confirm',
  method: 'POST',
  path: '/password/reset/confirm',
  json: true,
  handle: async ({ body, origin, services }) => {
    await confirmPasswordReset(await services.recovery(), { body, sourceIp: origin.sourceIp });
    return noContent();
  },
});

/** POST /email/verify `{ token }` -> 204; `invalid_token`. */
export const verifyEmailRoute = defineRoute<RecoveryServices>({
  name: 'email-verify',
  method: 'POST',
  path: '/email/verify',
  json: true,
  handle: async ({ body, services }) => {
    await verifyEmail(await services.recovery(), { body });
    return noContent();
  },
});

/** POST /email/verify/resend with a Bearer token -> 202 (nothing is sent for a verified address). */
export const resendVerificationRoute = defineRoute<RecoveryServices>({
  name: 'email-verify-resend',
  method: 'POST',
  path: '/email/verify/resend',
  json: false,
  handle: async ({ request, services }) => {
    await resendVerification(await services.recovery(), { accessToken: bearerToken(request.headers.get('authorization') ?? undefined) });
    return jsonResponse(202, ACCEPTED);
  },
});
