import { confirmPasswordReset } from './confirm-password-reset.js';
import type { RecoveryServices } from './dependencies.js';
import { Accepted, EmailVerification, PasswordResetConfirmation, PasswordResetRequest } from './recovery-schemas.js';
import { requestPasswordReset } from './request-password-reset.js';
import { resendVerification, verifyEmail } from './verify-email.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { CallerServices } from '../sessions/caller-services.js';
import { SESSION_INSUFFICIENT_SCOPE } from '../sessions/session-schemas.js';
import { BAD_EMAIL_REQUEST, NO_STORE, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import type { NamedSchema } from '../../api/operation-doc.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, noContent } from '../../api/responses.js';

/** What every "maybe sent" answer says: the same body whether or not an account exists. */
export const ACCEPTED = { status: 'accepted' } as const;
export const ACCEPTED_BODY: NamedSchema = { name: 'Accepted', schema: Accepted };

/** POST /password/reset `{ email }` -> 202, whether or not the account exists. */
export const requestPasswordResetRoute = defineRoute<RecoveryServices, typeof PasswordResetRequest>({
  name: 'password-reset',
  method: 'POST',
  path: '/password/reset',
  body: { name: 'PasswordResetRequest', schema: PasswordResetRequest },
  doc: {
    operationId: 'requestPasswordReset',
    summary: "Mail a password-reset link to an account's email",
    description: `The same answer, 202 \`{"status":"accepted"}\`, in the same time, for every well-formed
email: an account's, an unknown one, or one over its limits (3 mails per account per
hour, PASSLANE_RECOVERY_MAILS_PER_HOUR, and the per-source limit), so it tells nobody
which emails have accounts. For an account within its limits a new token replaces the
outstanding one (an earlier link stops working) and the link
\`<PASSLANE_APP_URL>/reset-password#token=<token>\` is mailed; it works for
PASSLANE_RESET_TOKEN_TTL_S (1 hour), once. A mail that cannot go out changes nothing in
the answer.
`,
    security: 'none',
    answers: {
      202: { description: 'Accepted, whether or not an account has this email.', headers: { 'Cache-Control': NO_STORE }, body: ACCEPTED_BODY },
      400: BAD_EMAIL_REQUEST,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, origin, services }) => {
    await requestPasswordReset(await services.recovery(), { email: body.email, sourceIp: origin.sourceIp });
    return jsonResponse(202, ACCEPTED);
  },
});

/** POST /password/reset/confirm `{ token, newPassword }` -> 204; `invalid_token`. */
export const confirmPasswordResetRoute = defineRoute<RecoveryServices, typeof PasswordResetConfirmation>({
  name: 'password-reset-confirm',
  method: 'POST',
  path: '/password/reset/confirm',
  body: { name: 'PasswordResetConfirmation', schema: PasswordResetConfirmation },
  doc: {
    operationId: 'confirmPasswordReset',
    summary: 'Set a new password with the token of a reset link',
    description: `Uses the token (of two racing confirms exactly one succeeds), stores the new password
(checked against the password rules), ends every session of the account, clears its
run of failed logins, counts its email as verified (the link proved the mailbox) and
voids every other reset or verification link of the account.
`,
    security: 'none',
    answers: {
      204: { description: 'The password is reset; every session of the account has ended.', headers: { 'Cache-Control': NO_STORE } },
      400: {
        description: `\`invalid_token\`: the token is malformed, unknown, already used, expired, replaced by a
newer request, voided after too many wrong tokens, or voided by a password change or
reset since it was mailed; ask for a new link.
\`password_rejected\`: the new password breaks the password rules (\`error.reason\` says
which). \`invalid_request\`: the body is not an object, or \`newPassword\` is missing, not
a string or over 1024 bytes. \`invalid_json\`: the body is not valid UTF-8 JSON.
`,
        codes: ['invalid_token', 'password_rejected', 'invalid_request', 'invalid_json'],
      },
      409: { description: 'The password changed concurrently several times over; retry (`conflict`).', codes: ['conflict'] },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, origin, services }) => {
    await confirmPasswordReset(await services.recovery(), { token: body.token, newPassword: body.newPassword, sourceIp: origin.sourceIp });
    return noContent();
  },
});

/** POST /email/verify `{ token }` -> 204; `invalid_token`. */
export const verifyEmailRoute = defineRoute<RecoveryServices, typeof EmailVerification>({
  name: 'email-verify',
  method: 'POST',
  path: '/email/verify',
  body: { name: 'EmailVerification', schema: EmailVerification },
  doc: {
    operationId: 'verifyEmail',
    summary: "Mark the account's email verified with the token of a verification link",
    description: `Uses the token (single use). Access tokens issued from now on, including the next refresh
of a live session, carry \`email_verified: true\`.
`,
    security: 'none',
    answers: {
      204: { description: 'Verified.', headers: { 'Cache-Control': NO_STORE } },
      400: {
        description: `\`invalid_token\`: the token is missing, malformed, unknown, already used, expired,
replaced by a newer link, voided after too many wrong tokens, or voided by a password
change or reset since it was mailed (a reset verifies the email itself).
\`invalid_request\`: the body is not an object. \`invalid_json\`: the body is not valid
UTF-8 JSON.
`,
        codes: ['invalid_token', 'invalid_request', 'invalid_json'],
      },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, services }) => {
    await verifyEmail(await services.recovery(), { token: body.token });
    return noContent();
  },
});

/** POST /email/verify/resend with a Bearer token -> 202 (nothing is sent for a verified address). */
export const resendVerificationRoute = defineRoute<RecoveryServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'email-verify-resend',
  method: 'POST',
  path: '/email/verify/resend',
  authenticate: 'session',
  doc: {
    operationId: 'resendVerification',
    summary: "Mail a new verification link to the token's account",
    description: `A new link \`<PASSLANE_APP_URL>/verify-email#token=<token>\` replaces the outstanding one
(within the account's hourly mail budget, silently). Nothing is sent when the email is
verified already; the answer is the same. No request body.
`,
    answers: {
      202: { description: 'Accepted.', headers: { 'Cache-Control': NO_STORE }, body: ACCEPTED_BODY },
      401: {
        description:
          '`unauthenticated`: no Bearer token, or it is invalid or expired, or its session has ended or it names none, or its account no longer exists.',
        headers: { 'WWW-Authenticate': { required: true, description: '`Bearer` (RFC 6750 §3).', schema: { type: 'string' } } },
        codes: ['unauthenticated'],
      },
      403: SESSION_INSUFFICIENT_SCOPE,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, services }) => {
    await resendVerification(await services.recovery(), { caller });
    return jsonResponse(202, ACCEPTED);
  },
});
