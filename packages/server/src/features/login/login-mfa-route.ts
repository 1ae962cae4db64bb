import { InvalidRequestError } from '../../accounts/errors.js';
import { BAD_REQUEST, MINTING_UNAVAILABLE, RATE_LIMITED } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import type { MfaLoginServices } from './dependencies.js';
import { presentedDeviceTokens } from './device-cookie.js';
import { loginWithSecondFactor, type SecondFactor } from './login-mfa.js';
import { ACCOUNT_DISABLED, loginResultResponse, loginRoute } from './login-route.js';
import { CODE_REQUIRED, LoggedIn, MfaLoginRequest } from './login-schemas.js';
import { FACTOR_SUSPENDED } from '../mfa/mfa-schemas.js';

/**
 * POST /login/mfa: { mfaToken, method, code | response, deviceToken? } -> what a good POST /login
 * answers. `method` names the factor: `totp` and `recovery_code` take a `code`, `webauthn` a
 * passkey's `response` (an assertion of the options `mfa_required` carried).
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
within one 30-second step either side), a recovery code (each works once), or a passkey's
assertion (\`method: "webauthn"\`, \`response\`: the browser's \`credential.toJSON()\` for the
\`webauthn\` options). Answers as a good \`POST /login\` does. Every code or assertion is counted
before it is checked: against the token (dead after 5), against its kind of factor over the
factor's life (100 wrong ones, then suspended until another factor, a recovery code or a reset by
mail proves the owner), and as a login of the account (the login's limits, as at the password
step; 429 when one is reached, before anything is checked).
`,
    parameters: loginRoute.doc.parameters,
    answers: {
      200: { ...loginRoute.doc.answers[200]!, body: { name: 'LoggedIn', schema: LoggedIn } },
      400: BAD_REQUEST,
      401: {
        description: `\`invalid_mfa_code\`: the code is wrong, replayed or used, or the assertion does not verify; the
token lives on (until its 5th wrong code). \`invalid_mfa_token\`: the token is unknown, expired, used, dead, or the password changed since: log in again.
`,
        codes: ['invalid_mfa_code', 'invalid_mfa_token'],
      },
      403: { name: 'MfaLoginForbidden', description: `${FACTOR_SUSPENDED.description}${ACCOUNT_DISABLED}`, codes: ['factor_suspended', 'account_disabled'] },
      429: RATE_LIMITED,
      503: MINTING_UNAVAILABLE,
    },
  },
  handle: async ({ request, body, origin, services }) =>
    loginResultResponse(
      await loginWithSecondFactor(await services.mfaLogin(), {
        mfaToken: body.mfaToken,
        ...secondFactorOf(body),
        sourceIp: origin.sourceIp,
        userAgent: request.headers.get('user-agent') ?? undefined,
        deviceTokens: presentedDeviceTokens(request, body.deviceToken),
      }),
    ),
});

/** The factor `method` names, with the field it takes: `code`, or a passkey's `response`. */
function secondFactorOf(body: { method: SecondFactor['method']; code?: string; response?: object }): SecondFactor {
  if (body.method === 'webauthn') {
    if (body.response === undefined) throw new InvalidRequestError('response must be an object (the passkey\'s assertion) with method "webauthn"', 'response');
    return { method: 'webauthn', response: body.response as Extract<SecondFactor, { method: 'webauthn' }>['response'] };
  }
  if (body.code === undefined) throw new InvalidRequestError(CODE_REQUIRED, 'code');
  return { method: body.method, code: body.code };
}
