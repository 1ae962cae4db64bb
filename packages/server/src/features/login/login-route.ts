import { login } from './login.js';
import { deviceCookie, presentedDeviceTokens } from './device-cookie.js';
import type { LoginServices } from './dependencies.js';
import { LoggedIn, LoginRequest, MfaRequired } from './login-schemas.js';
import type { LoginResult, MfaRequiredResult } from './login-verdict.js';
import { BAD_REQUEST, LOGIN_UNAVAILABLE, NO_STORE, RATE_LIMITED, SIGNUP_REFUSED_TEXT } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, type ApiResponse } from '../../api/responses.js';

/** The disabled gate's answer (finish-login.ts), on every way to log in. */
export const ACCOUNT_DISABLED = `\`account_disabled\`: the secret is right but an operator disabled the account; nothing is
counted as a failure. A wrong secret on a disabled account answers as on any other.
`;

/**
 * POST /login: { email, password, deviceToken? } -> 200 { accessToken, tokenType, expiresIn,
 * refreshToken, refreshExpiresIn, deviceToken, deviceExpiresIn }, and the device token in a
 * `__Host-` cookie for browsers (device-cookie.ts).
 */
export const loginRoute = defineRoute<LoginServices, typeof LoginRequest>({
  name: 'login',
  method: 'POST',
  path: '/login',
  body: { name: 'LoginRequest', schema: LoginRequest },
  doc: {
    operationId: 'login',
    summary: 'Exchange email and password for an access token and a refresh token',
    description: `Starts a session. An account has at most PASSLANE_SESSIONS_PER_ACCOUNT (10) live
sessions; a login beyond that ends the oldest. A known device (its \`deviceToken\`, or its
\`__Host-passlane-device-*\` cookie) is counted against that device alone; good logins are
bounded per account (PASSLANE_LOGIN_SUCCESS_LIMIT_PER_ACCOUNT) and, without a known
device, per source (PASSLANE_LOGIN_SUCCESS_LIMIT_PER_IP).
`,
    parameters: [
      {
        name: 'Cookie',
        in: 'header',
        required: false,
        description: 'Browsers: the `__Host-passlane-device-<account>` cookies of earlier logins.',
        schema: { type: 'string' },
      },
    ],
    answers: {
      200: {
        description: 'Logged in.',
        headers: {
          'Cache-Control': NO_STORE,
          'Set-Cookie': {
            description: '`__Host-passlane-device-<account>=<deviceToken>; Max-Age=<deviceExpiresIn>; Path=/; HttpOnly; Secure; SameSite=Strict`',
            schema: { type: 'string' },
          },
        },
        body: { name: 'LoggedIn', schema: LoggedIn },
      },
      400: BAD_REQUEST,
      401: {
        description: `Unknown email or wrong password; the two are indistinguishable (\`invalid_credentials\`), on an
account with a second factor too. \`mfa_required\`: the password is right and the account has a
second factor: the body adds \`mfaToken\` (good for 5 minutes, one login, 5 wrong codes) and
\`methods\`; finish at \`POST /login/mfa\`.
`,
        codes: ['invalid_credentials', 'mfa_required'],
        body: { name: 'MfaRequired', schema: MfaRequired },
      },
      403: {
        description: `\`email_not_verified\`: with PASSLANE_REQUIRE_VERIFIED_EMAIL=true, the password is right
but the account's email is not verified yet; a new verification link was mailed
(within the account's hourly mail budget). Only after the password verified, so it
tells a guesser nothing (a wrong password stays 401).
${ACCOUNT_DISABLED}${SIGNUP_REFUSED_TEXT}With lazy migration only: the old system vouched for the password, and the account was not created.
`,
        codes: ['email_not_verified', 'account_disabled', 'signup_refused'],
      },
      429: RATE_LIMITED,
      503: LOGIN_UNAVAILABLE,
    },
  },
  handle: async ({ request, body, origin, services }) =>
    loginResultResponse(
      await login(await services.login(), {
        email: body.email,
        password: body.password,
        sourceIp: origin.sourceIp,
        userAgent: request.headers.get('user-agent') ?? undefined,
        deviceTokens: presentedDeviceTokens(request, body.deviceToken),
      }),
    ),
});

/**
 * A login's answer, POST /login's, /login/mfa's and /passkey/login's alike: a session's tokens
 * and the device cookie for browsers, or `401 mfa_required` with what finishes the login.
 */
export function loginResultResponse(result: LoginResult): ApiResponse {
  if (result.kind === 'mfa_required') return mfaRequiredResponse(result);
  const { kind: _session, ...answer } = result;
  const cookie = deviceCookie(answer.deviceToken, answer.deviceExpiresIn);
  return jsonResponse(200, answer, cookie === undefined ? {} : { 'set-cookie': cookie });
}

/** The answer's message, as every `mfa_required` has said it. */
const MFA_REQUIRED_MESSAGE = 'a second factor is required to finish the login';

/** `401 {"error":{"code":"mfa_required",...},"mfaToken":...,"methods":[...]}`: an error's body, and what finishes the login. */
function mfaRequiredResponse(result: MfaRequiredResult): ApiResponse {
  const { mfaToken, methods, webauthn } = result;
  return jsonResponse(401, { error: { code: 'mfa_required', message: MFA_REQUIRED_MESSAGE }, mfaToken, methods, ...(webauthn !== undefined && { webauthn }) });
}
