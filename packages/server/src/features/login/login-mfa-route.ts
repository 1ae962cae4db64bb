import { BAD_REQUEST, RATE_LIMITED, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import type { MfaLoginServices } from './dependencies.js';
import { presentedDeviceTokens } from './device-cookie.js';
import { loginWithSecondFactor } from './login-mfa.js';
import { loggedInResponse, loginRoute } from './login-route.js';
import { LoggedIn, MfaLoginRequest } from './login-schemas.js';

/**
 * POST /login/mfa: { mfaToken, method, code, deviceToken? } -> what a good POST /login answers.
 * `method` names the factor, so passkeys plug in as `webauthn` without changing the others.
 */
export const loginMfaRoute = defineRoute<MfaLoginServices, typeof MfaLoginRequest>({
  name: 'login_mfa',
  method: 'POST',
  path: '/login/mfa',
  body: { name: 'MfaLoginRequest', schema: MfaLoginRequest },
  doc: {
    operationId: 'loginMfa',
    summary: 'Finish a login with a second factor',
    description: `After \`POST /login\` answered \`401 mfa_required\`: the MFA token and a TOTP code (accepted once,
within one 30-second step either side) or a recovery code (each works once). Answers as a good
\`POST /login\` does. A wrong code counts against the token (dead after 5) and as a failed login
of the account; the login's limits apply as at the password step.
`,
    parameters: loginRoute.doc.parameters,
    answers: {
      200: { ...loginRoute.doc.answers[200]!, body: { name: 'LoggedIn', schema: LoggedIn } },
      400: BAD_REQUEST,
      401: {
        description: `\`invalid_mfa_code\`: the code is wrong, replayed or used; the token lives on (until its 5th wrong
code). \`invalid_mfa_token\`: the token is unknown, expired, used, dead, or the password changed since: log in again.
`,
        codes: ['invalid_mfa_code', 'invalid_mfa_token'],
      },
      429: RATE_LIMITED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ request, body, origin, services }) =>
    loggedInResponse(
      await loginWithSecondFactor(await services.mfaLogin(), {
        mfaToken: body.mfaToken,
        method: body.method,
        code: body.code,
        sourceIp: origin.sourceIp,
        userAgent: request.headers.get('user-agent') ?? undefined,
        deviceTokens: presentedDeviceTokens(request, body.deviceToken),
      }),
    ),
});
