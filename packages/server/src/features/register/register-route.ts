import { register } from './register.js';
import type { RegisterServices } from './dependencies.js';
import { Credentials, Registered } from './register-schemas.js';
import { BAD_REQUEST, NO_STORE, RATE_LIMITED, SIGNUP_REFUSED_TEXT, SIGNUP_UNAVAILABLE } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';
import { ACCEPTED, ACCEPTED_BODY } from '../recovery/recovery-routes.js';

/**
 * POST /register: { email, password } -> 201 { userId }; with email verification on, 202 and
 * the same body for a new and a taken email (the mailbox's owner learns which it was).
 */
export const registerRoute = defineRoute<RegisterServices, typeof Credentials>({
  name: 'register',
  method: 'POST',
  path: '/register',
  body: { name: 'Credentials', schema: Credentials },
  doc: {
    operationId: 'register',
    summary: 'Create an account',
    description: `Without email verification (the default): 201 with the new account's id, 409 for a taken
email. With PASSLANE_EMAIL_VERIFICATION=true, 202 \`{"status":"accepted"}\` for a new and a
taken email alike, in the same time: the new account's mailbox gets a verification link,
a taken email's owner a mail saying someone tried to register it (nothing about the
account changes).
`,
    answers: {
      201: { description: 'Account created.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'Registered', schema: Registered } },
      202: {
        description: 'With PASSLANE_EMAIL_VERIFICATION=true, for a new and for a taken email alike; the mailbox is told which.',
        headers: { 'Cache-Control': NO_STORE },
        body: ACCEPTED_BODY,
      },
      400: BAD_REQUEST,
      403: { description: `${SIGNUP_REFUSED_TEXT}Asked before the address is looked at: the same for a taken address and a free one.`, codes: ['signup_refused'] },
      409: {
        description:
          'An account with this email already exists (`account_exists`), or during a lazy migration the old system still holds it; only without email verification.',
        codes: ['account_exists'],
      },
      429: RATE_LIMITED,
      503: SIGNUP_UNAVAILABLE,
    },
  },
  handle: async ({ body, origin, services }) => {
    const result = await register(await services.register(), { email: body.email, password: body.password, sourceIp: origin.sourceIp });
    return 'userId' in result ? jsonResponse(201, result) : jsonResponse(202, ACCEPTED);
  },
});
