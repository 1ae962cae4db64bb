import { IdentityLinkRequiredError } from '../../accounts/errors.js';
import { BAD_REQUEST, LOGIN_UNAVAILABLE, NO_STORE, RATE_LIMITED, SIGNUP_REFUSED_TEXT, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { cookieValue, hostCookie } from '../../api/host-cookies.js';
import type { AnswerDoc, ParameterDoc } from '../../api/operation-doc.js';
import { jsonResponse, type ApiResponse } from '../../api/responses.js';
import { defineRoute } from '../../api/route.js';
import { presentedDeviceTokens } from '../login/device-cookie.js';
import { loginResultResponse } from '../login/login-route.js';
import { LoggedIn, MfaRequired } from '../login/login-schemas.js';
import type { FederationServices } from './dependencies.js';
import { AppCodeRedemption, CallbackForm, LinkRequired } from './federation-schemas.js';
import { finishCallback } from './finish-callback.js';
import { redeemAppCode } from './redeem-app-code.js';
import { startSignIn } from './start-sign-in.js';

const PROVIDER_PARAMETER: ParameterDoc = { name: 'provider', in: 'path', required: true, description: 'A provider this deployment configures (PASSLANE_OAUTH_PROVIDERS).', schema: { type: 'string' } };
const PROVIDER_NOT_FOUND: AnswerDoc = { description: '`provider_not_found`: this deployment configures no provider of that name.', codes: ['provider_not_found'] };
const STATE_REFUSED: AnswerDoc = {
  description: `\`invalid_oauth_state\`: the \`state\` is unknown, used, expired (10 minutes), of another provider, or the
browser did not send the cookie the start set (another browser). Nothing is redirected.
`,
  codes: ['invalid_oauth_state'],
};
const TO_THE_APP: AnswerDoc = {
  description: `Back to \`redirect_to\` with \`code\` (one use, 60 seconds: redeem it at \`POST /oauth/token\` with the
app's \`codeVerifier\`), or with \`error\`: \`provider_refused\` (the provider's error, a failed code
exchange, an ID token refused) or \`temporarily_unavailable\` (the provider unreachable). The
sign-in's cookie is cleared either way.
`,
  headers: {
    Location: { required: true, schema: { type: 'string' } },
    'Set-Cookie': { description: 'The sign-in\'s `__Host-passlane-oauth-*` cookie, expired.', schema: { type: 'string' } },
    'Cache-Control': NO_STORE,
  },
};

/** GET /oauth/{provider}/start?redirect_to&code_challenge -> 302 to the provider, with the cookie binding this browser. */
export const oauthStartRoute = defineRoute<FederationServices>({
  name: 'oauth_start',
  method: 'GET',
  path: '/oauth/:provider/start',
  doc: {
    operationId: 'startProviderSignIn',
    summary: 'Start a sign-in with a provider (open in the browser)',
    description: `Redirects the browser to the provider: the authorization code flow with PKCE (S256), \`state\`
and, for OpenID Connect, \`nonce\`, kept server-side for 10 minutes and bound to this browser
by a \`__Host-\` cookie. \`redirect_to\` must be on the provider's allowed origins. The app
keeps its own PKCE verifier and passes its S256 challenge as \`code_challenge\`.
`,
    security: 'none',
    parameters: [
      PROVIDER_PARAMETER,
      { name: 'redirect_to', in: 'query', required: true, description: "The app's page to come back to; its origin must be one the provider's `redirectOrigins` name.", schema: { type: 'string' } },
      { name: 'code_challenge', in: 'query', required: true, description: "The S256 challenge of the app's `codeVerifier` (RFC 7636).", schema: { type: 'string' } },
      { name: 'code_challenge_method', in: 'query', required: false, description: '`S256`, the only one.', schema: { type: 'string' } },
    ],
    answers: {
      302: {
        description: "To the provider's authorization endpoint.",
        headers: {
          Location: { required: true, schema: { type: 'string' } },
          'Set-Cookie': { description: '`__Host-passlane-oauth-<id>=<secret>; Max-Age=600; Path=/; HttpOnly; Secure; SameSite=Lax` (`None` for a provider that posts its callback).', schema: { type: 'string' } },
          'Cache-Control': NO_STORE,
        },
      },
      400: {
        ...BAD_REQUEST,
        name: 'OAuthStartBadRequest',
        description: `\`redirect_not_allowed\`: \`redirect_to\` is missing, not an absolute http(s) URL, or its origin is not allowed. \`invalid_request\`: \`code_challenge\` is not an S256 challenge.\n`,
        codes: ['invalid_request', 'redirect_not_allowed'],
      },
      404: PROVIDER_NOT_FOUND,
      429: RATE_LIMITED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ request, params, origin, services }) => {
    const query = new URL(request.url).searchParams;
    const method = query.get('code_challenge_method');
    const started = await startSignIn(await services.federation(), {
      provider: params.provider ?? '',
      redirectTo: query.get('redirect_to') ?? undefined,
      // Only S256: a `plain` challenge would put the verifier in a URL.
      codeChallenge: method === null || method === 'S256' ? (query.get('code_challenge') ?? undefined) : undefined,
      sourceIp: origin.sourceIp,
    });
    const { name, value, maxAgeSeconds, sameSite } = started.cookie;
    return redirect(started.location, hostCookie(name, value, maxAgeSeconds, sameSite));
  },
});

const callbackDoc = (form: boolean) => ({
  operationId: form ? 'providerCallbackForm' : 'providerCallback',
  summary: form ? "The provider's callback, as a form post (`response_mode=form_post`)" : "The provider's callback",
  description: `Registered with the provider as \`<PASSLANE_PUBLIC_URL>/oauth/<provider>/callback\`. Spends the \`state\`
(one use), checks this browser's cookie, exchanges the code (PKCE), checks the ID token (issuer,
audience, expiry, nonce, signature by the provider's keys) or reads the user from GitHub's API,
and returns to the app with a code of its own: no token travels in a URL.
`,
  security: 'none' as const,
  parameters: [PROVIDER_PARAMETER],
  answers: { 302: TO_THE_APP, 400: STATE_REFUSED, 404: PROVIDER_NOT_FOUND, 503: TEMPORARILY_UNAVAILABLE },
});

/** GET /oauth/{provider}/callback?code&state -> 302 to the app with its code. */
export const oauthCallbackRoute = defineRoute<FederationServices>({
  name: 'oauth_callback',
  method: 'GET',
  path: '/oauth/:provider/callback',
  doc: callbackDoc(false),
  handle: async ({ request, params, services }) => callback(request, params.provider ?? '', new URL(request.url).searchParams, services),
});

/** POST /oauth/{provider}/callback (a form: Apple's `form_post`) -> 302 to the app with its code. */
export const oauthCallbackFormRoute = defineRoute<FederationServices, typeof CallbackForm>({
  name: 'oauth_callback_form',
  method: 'POST',
  path: '/oauth/:provider/callback',
  body: { name: 'CallbackForm', schema: CallbackForm, form: true },
  doc: callbackDoc(true),
  handle: async ({ request, body, params, services }) => callback(request, params.provider ?? '', formParameters(body), services),
});

async function callback(request: Request, provider: string, parameters: URLSearchParams, services: FederationServices): Promise<ApiResponse> {
  const finished = await finishCallback(await services.federation(), { provider, parameters, cookie: (name) => cookieValue(request, name) });
  return redirect(finished.location, hostCookie(finished.cookie.name, '', 0, finished.cookie.sameSite));
}

/** The form's string parameters, as the query of a `query` response would carry them. */
function formParameters(body: Readonly<Record<string, string | undefined>>): URLSearchParams {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') parameters.set(name, value);
  return parameters;
}

function redirect(location: string, cookie: string): ApiResponse {
  return { status: 302, headers: { 'cache-control': 'no-store', location, 'set-cookie': cookie } };
}

/** POST /oauth/token { code, codeVerifier } -> the login's answer (200 or 401 mfa_required), or 409 identity_link_required. */
export const oauthTokenRoute = defineRoute<FederationServices, typeof AppCodeRedemption>({
  name: 'oauth_token',
  method: 'POST',
  path: '/oauth/token',
  body: { name: 'AppCodeRedemption', schema: AppCodeRedemption },
  doc: {
    operationId: 'redeemProviderSignIn',
    summary: "Redeem a sign-in's app code for the login's answer",
    description: `The app's code from the callback's redirect, with the PKCE verifier of the \`code_challenge\` it
gave the start. A first sign-in with a verified email makes an account (no password: a reset
sets one); an email with an account already links nothing (\`identity_link_required\`). Then the
login goes on as any other: the account's gates, the limits, the second factor (unless the
deployment trusts the provider's), the session, \`amr\` \`fed\`.
`,
    security: 'none',
    answers: {
      200: {
        description: 'Signed in.',
        headers: { 'Cache-Control': NO_STORE, 'Set-Cookie': { description: 'The device cookie, as `POST /login` sets it.', schema: { type: 'string' } } },
        body: { name: 'LoggedIn', schema: LoggedIn },
      },
      400: {
        ...BAD_REQUEST,
        name: 'OAuthTokenBadRequest',
        description: `${BAD_REQUEST.description}\`invalid_oauth_code\`: the code is unknown, used, expired, or the verifier is missing or wrong.\n`,
        codes: [...(BAD_REQUEST.codes ?? []), 'invalid_oauth_code'],
      },
      401: { description: '`mfa_required`: the account has a second factor; finish at `POST /login/mfa`.', codes: ['mfa_required'], body: { name: 'MfaRequired', schema: MfaRequired } },
      403: {
        description: `\`provider_email_unverified\`: a new identity whose provider verified no email (no account is made).
\`email_not_verified\`, \`account_disabled\`: the account's gates, as at \`POST /login\`.
${SIGNUP_REFUSED_TEXT}Only for a first sign-in, which would create the account.
`,
        codes: ['provider_email_unverified', 'email_not_verified', 'account_disabled', 'signup_refused'],
      },
      409: {
        description: "`identity_link_required`: the provider's verified email has an account; `linkToken` links the identity after a login of it (`POST /identities/link`).",
        codes: ['identity_link_required'],
        body: { name: 'LinkRequired', schema: LinkRequired },
      },
      429: RATE_LIMITED,
      503: LOGIN_UNAVAILABLE,
    },
  },
  handle: async ({ request, body, origin, services }) => {
    try {
      const result = await redeemAppCode(await services.federation(), {
        code: body.code,
        codeVerifier: body.codeVerifier,
        sourceIp: origin.sourceIp,
        userAgent: request.headers.get('user-agent') ?? undefined,
        deviceTokens: presentedDeviceTokens(request, undefined),
      });
      return loginResultResponse(result);
    } catch (error) {
      if (error instanceof IdentityLinkRequiredError) return jsonResponse(409, { error: { code: error.code, message: error.message }, linkToken: error.linkToken });
      throw error;
    }
  },
});
