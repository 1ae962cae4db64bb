import { BAD_REQUEST, NO_STORE, RATE_LIMITED, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import type { AnswerDoc } from '../../api/operation-doc.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, noContent } from '../../api/responses.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { CallerServices } from '../sessions/caller-services.js';
import { SESSION_UNAUTHENTICATED } from '../sessions/session-schemas.js';
import type { MfaServices } from './dependencies.js';
import { confirmTotp, enrolTotp, regenerateRecoveryCodes, removeTotp } from './manage-totp.js';
import { FACTOR_SUSPENDED, MFA_REAUTHENTICATION, RecoveryCodes, TotpConfirm, TotpConfirmed, TotpEnrolled, TotpRemoval } from './mfa-schemas.js';

/** The MFA routes are exempt from PASSLANE_REQUIRE_MFA (an account gets its factor here), not from the scope. */
const MFA_FORBIDDEN = {
  ...MFA_REAUTHENTICATION,
  name: 'MfaForbidden',
  description: `${MFA_REAUTHENTICATION.description}\`insufficient_scope\`: the token lacks the scope PASSLANE_REQUIRED_SCOPE names.\n`,
  codes: ['reauthentication_required', 'insufficient_scope'],
} satisfies AnswerDoc;

/** `unauthenticated` (the Bearer token), or a wrong code. */
function unauthenticatedOr(wrongCode: string): AnswerDoc {
  return {
    ...SESSION_UNAUTHENTICATED,
    description: `${SESSION_UNAUTHENTICATED.description}${wrongCode}\n`,
    headers: { 'WWW-Authenticate': { required: false, description: '`Bearer` (RFC 6750 §3), with `unauthenticated` only.', schema: { type: 'string' } } },
    codes: ['unauthenticated', 'invalid_mfa_code'],
  };
}

/** POST /mfa/totp with a Bearer token of a recent login -> 200 { secret, otpauthUri, expiresIn }. */
export const enrolTotpRoute = defineRoute<MfaServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'mfa_totp_enrol',
  method: 'POST',
  path: '/mfa/totp',
  authenticate: 'recent',
  doc: {
    operationId: 'enrolTotp',
    summary: 'Start enrolling an authenticator app (TOTP)',
    description: `A new secret, pending until \`POST /mfa/totp/confirm\` with a code of it (within 10 minutes); a
new enrolment replaces one not confirmed. Needs a login within the last 5 minutes, and once the
account has a second factor (TOTP or a passkey), one that used it. RFC 6238:
SHA-1, 6 digits, 30-second steps. The URI carries the account's email as its label: it is
answered to the owner only and never logged.
`,
    answers: {
      200: { description: 'Pending; show the URI as a QR code.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'TotpEnrolled', schema: TotpEnrolled } },
      401: SESSION_UNAUTHENTICATED,
      403: MFA_FORBIDDEN,
      409: { description: '`mfa_already_enabled`: TOTP is active; remove it first.', codes: ['mfa_already_enabled'] },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, services }) => jsonResponse(200, await enrolTotp(await services.mfa(), { caller })),
});

/** POST /mfa/totp/confirm { code } -> 200 { recoveryCodes }: TOTP active. */
export const confirmTotpRoute = defineRoute<MfaServices & CallerServices, typeof TotpConfirm, AuthenticatedSession>({
  name: 'mfa_totp_confirm',
  method: 'POST',
  path: '/mfa/totp/confirm',
  authenticate: 'recent',
  body: { name: 'TotpConfirm', schema: TotpConfirm },
  doc: {
    operationId: 'confirmTotp',
    summary: 'Activate the pending authenticator app with one of its codes',
    description: `From now on a login with the password answers \`401 mfa_required\` and finishes at
\`POST /login/mfa\`. As the account's first factor, answers 10 recovery codes, shown this once
(after a passkey, the codes it brought stay). Needs what \`POST /mfa/totp\` needs: a password-only
login adds only the account's first factor (decided by the write itself, so a factor enrolled
concurrently is not bypassed). Every other session of the account whose login used no factor ends
(\`sessionsEnded\`); this one goes on, still without \`mfa\`. The owner is mailed, with a link that
undoes it (\`POST /mfa/undo\`, 7 days).
`,
    answers: {
      200: { description: 'Active.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'TotpConfirmed', schema: TotpConfirmed } },
      400: BAD_REQUEST,
      401: { ...unauthenticatedOr('`invalid_mfa_code`: not a code of the pending secret now.'), name: 'MfaConfirmUnauthenticated' },
      403: MFA_FORBIDDEN,
      409: { description: '`mfa_already_enabled`: TOTP is already active. `mfa_not_enabled`: no enrolment is waiting (none, or expired).', codes: ['mfa_already_enabled', 'mfa_not_enabled'] },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, body, services }) => jsonResponse(200, await confirmTotp(await services.mfa(), { caller, code: body.code })),
});

/** POST /mfa/recovery-codes -> 200 { recoveryCodes }: new ones, the old ones dead. */
export const regenerateRecoveryCodesRoute = defineRoute<MfaServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'mfa_recovery_codes',
  method: 'POST',
  path: '/mfa/recovery-codes',
  authenticate: 'recent',
  doc: {
    operationId: 'regenerateRecoveryCodes',
    summary: 'Replace the recovery codes',
    description:
      'Needs a login within the last 5 minutes that used a second factor (`mfa` in its `amr`) and an active factor (TOTP or a passkey); every earlier code stops working. Shown once. The owner is mailed.',
    answers: {
      200: { description: 'The new codes.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'RecoveryCodes', schema: RecoveryCodes } },
      401: SESSION_UNAUTHENTICATED,
      403: MFA_FORBIDDEN,
      409: { description: '`mfa_not_enabled`: no active factor.', codes: ['mfa_not_enabled'] },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, services }) => jsonResponse(200, await regenerateRecoveryCodes(await services.mfa(), { caller })),
});

/** DELETE /mfa/totp { method, code } -> 204: TOTP and the recovery codes removed. */
export const removeTotpRoute = defineRoute<MfaServices & CallerServices, typeof TotpRemoval, AuthenticatedSession>({
  name: 'mfa_totp_remove',
  method: 'DELETE',
  path: '/mfa/totp',
  authenticate: 'recent-with-factor',
  body: { name: 'TotpRemoval', schema: TotpRemoval },
  doc: {
    operationId: 'removeTotp',
    summary: 'Remove the authenticator app (and the recovery codes, unless a passkey remains)',
    description: `Needs a login within the last 5 minutes that used a second factor (\`mfa\` in its \`amr\`), and a
second factor now: a current TOTP code or a recovery
code. Attempts are counted per account: 5 per 15 minutes, then \`429 rate_limited\`. The
recovery codes stay while the account has a passkey. The owner is mailed.
`,
    answers: {
      204: { description: 'Removed: logins need the password alone again.', headers: { 'Cache-Control': NO_STORE } },
      400: BAD_REQUEST,
      401: { ...unauthenticatedOr('`invalid_mfa_code`: the code is wrong or used.'), name: 'MfaRemovalUnauthenticated' },
      403: { ...MFA_FORBIDDEN, name: 'MfaRemovalForbidden', description: `${MFA_FORBIDDEN.description}${FACTOR_SUSPENDED.description}`, codes: [...MFA_FORBIDDEN.codes, 'factor_suspended'] },
      409: { description: '`mfa_not_enabled`: no active TOTP.', codes: ['mfa_not_enabled'] },
      429: RATE_LIMITED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, body, services }) => {
    await removeTotp(await services.mfa(), { caller, method: body.method, code: body.code });
    return noContent();
  },
});
