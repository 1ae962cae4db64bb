import * as v from 'valibot';
import { emailField, stringField } from '../../accounts/request-fields.js';

/**
 * A link's token as the app posts it: any other value than a string is taken as no token, which
 * the use case refuses as it refuses a malformed one (`invalid_token`), never as a bad request.
 */
function linkToken(description: string) {
  return v.fallback(v.pipe(v.string(), v.description(description)), '');
}

/** POST /password/reset's body. */
export const PasswordResetRequest = v.object({
  email: emailField,
});

/** POST /password/reset/confirm's body: the token first in the document, and the new password checked first. */
export const PasswordResetConfirmation = v.object({
  token: linkToken('The token of the reset link: what follows `#token=`.'),
  newPassword: v.pipe(stringField('newPassword'), v.description('At most 1024 bytes in UTF-8; the password rules apply.')),
});

/** POST /email/verify's body. */
export const EmailVerification = v.object({
  token: linkToken('The token of the verification link: what follows `#token=`.'),
});

/** What every "maybe sent" answer says (ACCEPTED): the same body whether or not an account exists. */
export const Accepted = v.pipe(
  v.strictObject({ status: v.literal('accepted') }),
  v.description('The one answer of requests that may send a mail; the same whether or not an account has the email.'),
);
