import { BAD_REQUEST, NO_STORE, RATE_LIMITED, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, noContent } from '../../api/responses.js';
import { MFA_REAUTHENTICATION } from '../mfa/mfa-schemas.js';
import { ACCEPTED, ACCEPTED_BODY } from '../recovery/recovery-routes.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { CallerServices } from '../sessions/caller-services.js';
import { confirmEmailChange } from './confirm-email-change.js';
import type { EmailChangeServices } from './dependencies.js';
import { EmailChangeConfirmation, EmailChangeRequest, EmailChangeUndo, EmailChangeUndone } from './email-change-schemas.js';
import { requestEmailChange } from './request-email-change.js';
import { undoEmailChange } from './undo-email-change.js';

/** POST /email/change `{ newEmail }` with a Bearer token -> 202, whether or not the address has an account. */
export const requestEmailChangeRoute = defineRoute<EmailChangeServices & CallerServices, typeof EmailChangeRequest, AuthenticatedSession>({
  name: 'email-change',
  method: 'POST',
  path: '/email/change',
  body: { name: 'EmailChangeRequest', schema: EmailChangeRequest },
  // A live session here; the use case asks for a recent login with a factor where there is one.
  authenticate: 'session',
  doc: {
    operationId: 'requestEmailChange',
    summary: "Mail a link that moves the token's account to a new address",
    description: `Nothing changes yet: the old address still logs in. The token's session must be live, its
login at most 5 minutes old and, on an account with a second factor, made with one. The
same answer, 202 \`{"status":"accepted"}\`, whether the new address is free or has an
account: a free one gets the link \`<PASSLANE_APP_URL>/confirm-email-change#token=<token>\`
(30 minutes, once; a new request replaces it, a password change voids it), a taken one
a mail saying someone tried. Each within the new mailbox's and the account's hourly
budgets (PASSLANE_RECOVERY_MAILS_PER_HOUR), over which nothing is sent, silently.
`,
    answers: {
      202: { description: 'Accepted, whether or not the new address has an account.', headers: { 'Cache-Control': NO_STORE }, body: ACCEPTED_BODY },
      400: BAD_REQUEST,
      401: {
        description: 'No Bearer token, or it is invalid or expired, or its session has ended (`unauthenticated`, with `WWW-Authenticate: Bearer`).',
        headers: { 'WWW-Authenticate': { description: '`Bearer`.', schema: { type: 'string' } } },
        codes: ['unauthenticated'],
      },
      403: {
        ...MFA_REAUTHENTICATION,
        name: 'EmailChangeForbidden',
        description: `${MFA_REAUTHENTICATION.description}\`insufficient_scope\`, \`insufficient_user_authentication\`: as every Bearer route. \`account_disabled\`: an operator disabled the account.\n`,
        codes: ['reauthentication_required', 'insufficient_scope', 'insufficient_user_authentication', 'account_disabled'],
      },
      429: RATE_LIMITED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, caller, services }) => {
    await requestEmailChange(await services.emailChange(), { caller, newEmail: body.newEmail });
    return jsonResponse(202, ACCEPTED);
  },
});

/** POST /email/change/confirm `{ token }` -> 204: the account moved; `email_taken`. */
export const confirmEmailChangeRoute = defineRoute<EmailChangeServices, typeof EmailChangeConfirmation>({
  name: 'email-change-confirm',
  method: 'POST',
  path: '/email/change/confirm',
  body: { name: 'EmailChangeConfirmation', schema: EmailChangeConfirmation },
  doc: {
    operationId: 'confirmEmailChange',
    summary: 'Move the account to its new address with the token of the link mailed there',
    description: `Uses the token (once), then moves the account in one transaction: the new address's item
created only if absent, the old one's deleted only while unchanged, the second factors and
passkeys carried along. The new address logs in from now on, the old one does not; every
session ends and every device is forgotten; the address counts as verified. The old
address gets a notice with a "this wasn't me" link (\`<PASSLANE_APP_URL>/undo-email-change#token=<token>\`, 7 days).
`,
    security: 'none',
    answers: {
      204: { description: 'The account has its new address; every session has ended.', headers: { 'Cache-Control': NO_STORE } },
      400: {
        description: `\`invalid_token\`: the token is missing, malformed, unknown, already used, expired, replaced
by a newer request or voided by a password change. \`invalid_request\`: the body is not an
object. \`invalid_json\`: the body is not valid UTF-8 JSON.
`,
        codes: ['invalid_token', 'invalid_request', 'invalid_json'],
      },
      409: {
        description: `\`email_taken\`: the new address got an account since the link was mailed (another account's
change, or a registration); nothing changed. \`conflict\`: the account changed or went
while it was being moved; ask for a new link.
`,
        codes: ['email_taken', 'conflict'],
      },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, services }) => {
    await confirmEmailChange(await services.emailChange(), { token: body.token });
    return noContent();
  },
});

/** POST /email/change/undo `{ token }` -> 200 { emailRestored }: the "this wasn't me" link of the old address's notice. */
export const undoEmailChangeRoute = defineRoute<EmailChangeServices, typeof EmailChangeUndo>({
  name: 'email-change-undo',
  method: 'POST',
  path: '/email/change/undo',
  body: { name: 'EmailChangeUndo', schema: EmailChangeUndo },
  doc: {
    operationId: 'undoEmailChange',
    summary: "Put an account's old address back, with the token of its notice's \"this wasn't me\" link",
    description: `The old mailbox is the proof: no session is needed. Moves the account back to the old address
(only if that address is still free), ends every session and forgets every device, and makes
the password unusable until a reset, whose link is mailed to the old address now. If the old
address has another account by now, the account keeps its address but is disabled (sessions
ended, password locked) until an operator sorts it out. The link works for 7 days, once.
`,
    security: 'none',
    answers: {
      200: { description: 'Undone.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'EmailChangeUndone', schema: EmailChangeUndone } },
      400: {
        description: `\`invalid_token\`: the token is missing, malformed, unknown, already used or expired, or the
account is gone. \`invalid_request\`: the body is not an object. \`invalid_json\`: the body is
not valid UTF-8 JSON.
`,
        codes: ['invalid_token', 'invalid_request', 'invalid_json'],
      },
      409: { description: 'The account changed or went while it was being moved back; use the link again (`conflict`).', codes: ['conflict'] },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, services }) => jsonResponse(200, await undoEmailChange(await services.emailChange(), { token: body.token })),
});

/** The address change's routes, served together. */
export const EMAIL_CHANGE_ROUTES = [requestEmailChangeRoute, confirmEmailChangeRoute, undoEmailChangeRoute] as const;
