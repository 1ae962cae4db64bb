import { changePassword } from './change-password.js';
import type { PasswordServices } from './dependencies.js';
import { PasswordChange } from './password-schemas.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { CallerServices } from '../sessions/caller-services.js';
import { SESSION_INSUFFICIENT_SCOPE } from '../sessions/session-schemas.js';
import { BAD_REQUEST, RATE_LIMITED, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import { noContent } from '../../api/responses.js';

/** POST /password with a Bearer token: { currentPassword, newPassword } -> 204. */
export const changePasswordRoute = defineRoute<PasswordServices & CallerServices, typeof PasswordChange, AuthenticatedSession>({
  name: 'password',
  method: 'POST',
  path: '/password',
  body: { name: 'PasswordChange', schema: PasswordChange },
  // The token before the body's fields: a caller without a live session is told only that.
  authenticate: 'session',
  doc: {
    operationId: 'changePassword',
    summary: "Change the password of the token's account",
    description: `The token's session must be live. Every other session of the account ends; the session
of the token that changed it goes on. Reset and verification links mailed before stop
working.
`,
    answers: {
      204: { description: 'Password changed.' },
      400: BAD_REQUEST,
      401: {
        description: `\`unauthenticated\`: no Bearer token, or it is invalid or expired, or its session has
ended or it names none (with \`WWW-Authenticate: Bearer\`). \`invalid_credentials\`: the
current password is wrong.
`,
        headers: { 'WWW-Authenticate': { description: '`Bearer`, when the token is the problem.', schema: { type: 'string' } } },
        codes: ['unauthenticated', 'invalid_credentials'],
      },
      403: SESSION_INSUFFICIENT_SCOPE,
      409: { description: 'The password changed concurrently; retry (`conflict`).', codes: ['conflict'] },
      429: RATE_LIMITED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, caller, origin, services }) => {
    await changePassword(await services.password(), { caller, currentPassword: body.currentPassword, newPassword: body.newPassword, sourceIp: origin.sourceIp });
    return noContent();
  },
});
