import * as v from 'valibot';
import type { AnswerDoc } from '../../api/operation-doc.js';

const CODE_REQUIRED = 'code must be a non-empty string';
const code = (description: string) => v.pipe(v.string(CODE_REQUIRED), v.nonEmpty(CODE_REQUIRED), v.maxLength(64, 'code must be at most 64 characters'), v.description(description));

/**
 * A code's method (`totp`, `recovery_code`): DELETE /mfa/totp's. POST /login/mfa takes
 * `webauthn` too, with an assertion in place of the code (login-schemas.ts).
 */
export const MFA_METHOD = v.pipe(
  v.picklist(['totp', 'recovery_code'], 'method must be "totp" or "recovery_code"'),
  v.description('`totp`: a code of the authenticator app; `recovery_code`: one of the recovery codes (each works once).'),
);

/** POST /mfa/totp/confirm's body. */
export const TotpConfirm = v.object({ code: code('The 6-digit code the app shows for the secret just enrolled.') });

/** DELETE /mfa/totp's body: a second factor, besides the recent login. */
export const TotpRemoval = v.object({ method: MFA_METHOD, code: code('The code of `method`.') });

/** POST /mfa/totp's answer. */
export const TotpEnrolled = v.object({
  secret: v.pipe(v.string(), v.description('The secret in base32 (RFC 4648, no padding), for typing into an app by hand. Shown once, to the owner.')),
  otpauthUri: v.pipe(v.string(), v.description('`otpauth://totp/<issuer>:<email>?secret=...&issuer=...&algorithm=SHA1&digits=6&period=30`, for a QR code.')),
  expiresIn: v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Seconds left to confirm it with `POST /mfa/totp/confirm`.')),
});

/** The recovery codes, shown once (confirm, regenerate). */
export const RecoveryCodes = v.object({
  recoveryCodes: v.pipe(
    v.array(v.string()),
    v.description('10 codes like `abcd-efgh-ijkl-mnop`, each good for one login (`method: "recovery_code"`). Shown once: only their hashes are kept.'),
  ),
});

/** How many of the account's sessions a factor turned on ended (those whose login used no factor). */
export const SESSIONS_ENDED = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(0),
  v.description(
    "The account's other sessions whose login used no second factor, ended now (the session that turned the factor on goes on, still password-only); sessions that used a factor stay.",
  ),
);

/** POST /mfa/totp/confirm's answer: codes only when TOTP is the account's first factor (a passkey's codes stay). */
export const TotpConfirmed = v.object({
  recoveryCodes: v.optional(
    v.pipe(
      v.array(v.string()),
      v.description("Only when TOTP is the account's first factor: 10 codes, each good for one login, shown once. Absent when a passkey came first: its codes stay."),
    ),
  ),
  sessionsEnded: SESSIONS_ENDED,
});

export const MFA_REAUTHENTICATION: AnswerDoc = {
  name: 'MfaReauthentication',
  description: `\`reauthentication_required\`: the session's login is more than 5 minutes old, or the account
has a second factor and the session's login did not use one (only a factor changes factors);
log in again, with the factor, and retry (second factors change only right after a login).
`,
  codes: ['reauthentication_required'],
};

/** A kind of factor past its bound of wrong attempts (factor-failures.ts): nothing of it is checked. */
export const FACTOR_SUSPENDED = {
  name: 'FactorSuspended',
  description: `\`factor_suspended\`: this kind of factor had 100 wrong codes or assertions since a factor was
last right (NIST SP 800-63B-4 §3.2.2), so it is not checked any more: use a recovery code or
another factor, or reset the password from the account's mailbox. The owner was mailed.
`,
  codes: ['factor_suspended'],
} satisfies AnswerDoc;

/** POST /mfa/undo's body: the link's token (any other value than a string is no token: `invalid_token`, as in the recovery routes). */
export const FactorUndo = v.object({
  token: v.fallback(v.pipe(v.string(), v.description("The token of the \"this wasn't me\" link in a factor's mail: what follows `#token=`.")), ''),
});

/** POST /mfa/undo's answer. */
export const FactorUndone = v.object({
  factorRemoved: v.pipe(
    v.boolean(),
    v.description('The factor the mail was about was still there and is removed now; false: it was removed already. Either way every session has ended and the password must be reset.'),
  ),
});
