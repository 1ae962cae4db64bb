import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { BAD_REQUEST, MINTING_UNAVAILABLE, NO_STORE, RATE_LIMITED, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import type { AnswerDoc } from '../../api/operation-doc.js';
import { FACTOR_SUSPENDED } from '../mfa/mfa-schemas.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, noContent } from '../../api/responses.js';
import { presentedDeviceTokens } from '../login/device-cookie.js';
import { loginResultResponse, loginRoute } from '../login/login-route.js';
import { LoggedIn } from '../login/login-schemas.js';
import { MFA_REAUTHENTICATION } from '../mfa/mfa-schemas.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { CallerServices } from '../sessions/caller-services.js';
import { SESSION_UNAUTHENTICATED } from '../sessions/session-schemas.js';
import { configuredRelyingParty } from './configured.js';
import type { PasskeyLoginServices, PasskeyServices } from './dependencies.js';
import { listPasskeys, removePasskey, renamePasskey } from './manage-passkeys.js';
import { loginWithPasskey, passkeyLoginOptions } from './passkey-login.js';
import {
  PasskeyAnswer,
  PasskeyList,
  PasskeyLoginRequest,
  PasskeyRegistered,
  PasskeyRegistration,
  PasskeyRename,
} from './passkey-schemas.js';
import { CreationOptions, RequestOptions } from '../../webauthn/webauthn-schemas.js';
import { passkeyRegistrationOptions, registerPasskey } from './register-passkey.js';

/** Every passkey route: the deployment names no relying party (PASSLANE_WEBAUTHN_RP_ID). */
const NOT_CONFIGURED: AnswerDoc = {
  name: 'PasskeysNotConfigured',
  description: '`passkeys_not_configured`: this deployment has no relying party (PASSLANE_WEBAUTHN_RP_ID, PASSLANE_WEBAUTHN_ORIGINS).',
  codes: ['passkeys_not_configured'],
};

const FORBIDDEN: AnswerDoc = {
  ...MFA_REAUTHENTICATION,
  name: 'PasskeyForbidden',
  description: `${MFA_REAUTHENTICATION.description}\`insufficient_scope\`: the token lacks the scope PASSLANE_REQUIRED_SCOPE names.\n`,
  codes: ['reauthentication_required', 'insufficient_scope'],
};

const NOT_FOUND: AnswerDoc = { description: "`passkey_not_found`: no passkey of the caller's account has this id.", codes: ['passkey_not_found'] };

const ID_PARAMETER = [{ name: 'id', in: 'path' as const, required: true, description: "A passkey's `id` from `GET /passkeys` (its credential id).", schema: { type: 'string' as const } }];

/** The management routes are served only where a relying party is configured: `passkeys_not_configured` before the token is read. */
const offered = async (services: PasskeyServices): Promise<void> => {
  configuredRelyingParty(await services.passkeys());
};

/** POST /passkeys/registration/options -> 200 creation options (a challenge for 5 minutes, one use). */
export const passkeyRegistrationOptionsRoute = defineRoute<PasskeyServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'passkey_registration_options',
  method: 'POST',
  path: '/passkeys/registration/options',
  offered,
  authenticate: 'recent',
  doc: {
    operationId: 'passkeyRegistrationOptions',
    summary: 'Start registering a passkey',
    description: `Creation options for \`navigator.credentials.create()\`: a discoverable credential (resident key
required), user verification preferred, attestation \`none\`, the account's passkeys excluded.
Its challenge is good for 5 minutes and one registration. Needs a login within the last 5 minutes,
and once the account has a second factor (TOTP or a passkey), one that used it.
`,
    answers: {
      200: { description: 'The options; answer with `POST /passkeys/registration`.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'PasskeyCreationOptions', schema: CreationOptions } },
      401: SESSION_UNAUTHENTICATED,
      403: FORBIDDEN,
      409: { description: '`passkey_limit_reached`: the account has 10 passkeys; remove one first.', codes: ['passkey_limit_reached'] },
      501: NOT_CONFIGURED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, services }) => jsonResponse(200, await passkeyRegistrationOptions(await services.passkeys(), { caller })),
});

/** POST /passkeys/registration { response, name? } -> 201 { passkey, recoveryCodes? }. */
export const registerPasskeyRoute = defineRoute<PasskeyServices & CallerServices, typeof PasskeyRegistration, AuthenticatedSession>({
  name: 'passkey_registration',
  method: 'POST',
  path: '/passkeys/registration',
  offered,
  authenticate: 'recent',
  body: { name: 'PasskeyRegistration', schema: PasskeyRegistration },
  doc: {
    operationId: 'registerPasskey',
    summary: 'Register a passkey',
    description: `The browser's answer to the creation options, verified (challenge, origin, RP ID, user presence)
and stored. The account's first factor comes with 10 recovery codes, shown this once. Needs what
the options need: a password-only login adds only the account's first factor (decided by the
write itself, so a factor enrolled concurrently is not bypassed). Every other session of the
account whose login used no factor ends (\`sessionsEnded\`); this one goes on, still without
\`mfa\`. The owner is mailed, with a link that undoes it (\`POST /mfa/undo\`, 7 days).
`,
    answers: {
      201: { description: 'Registered.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'PasskeyRegistered', schema: PasskeyRegistered } },
      400: BAD_REQUEST,
      401: {
        ...SESSION_UNAUTHENTICATED,
        name: 'PasskeyRegistrationUnauthenticated',
        description: `${SESSION_UNAUTHENTICATED.description}\`invalid_passkey\`: the answer does not verify (challenge unknown, used or expired, another origin or RP ID), or the credential is registered already.\n`,
        codes: ['unauthenticated', 'invalid_passkey'],
      },
      403: FORBIDDEN,
      409: { description: '`passkey_limit_reached`: the account has 10 passkeys.', codes: ['passkey_limit_reached'] },
      501: NOT_CONFIGURED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, body, services }) =>
    jsonResponse(
      201,
      await registerPasskey(await services.passkeys(), {
        caller,
        response: body.response as unknown as RegistrationResponseJSON,
        ...(body.name !== undefined && { name: body.name }),
      }),
    ),
});

/** GET /passkeys -> 200 { passkeys }. */
export const listPasskeysRoute = defineRoute<PasskeyServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'passkeys',
  method: 'GET',
  path: '/passkeys',
  offered,
  authenticate: 'factor-session',
  doc: {
    operationId: 'listPasskeys',
    summary: "List the account's passkeys",
    description: 'Oldest first; never a public key.',
    answers: {
      200: { description: 'The passkeys.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'PasskeyList', schema: PasskeyList } },
      401: SESSION_UNAUTHENTICATED,
      403: { ...FORBIDDEN, name: 'PasskeyListForbidden', description: '`insufficient_scope`: the token lacks the scope PASSLANE_REQUIRED_SCOPE names.', codes: ['insufficient_scope'] },
      501: NOT_CONFIGURED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, services }) => jsonResponse(200, await listPasskeys(await services.passkeys(), { caller })),
});

/** PATCH /passkeys/{id} { name } -> 200 { passkey }. */
export const renamePasskeyRoute = defineRoute<PasskeyServices & CallerServices, typeof PasskeyRename, AuthenticatedSession>({
  name: 'passkey_rename',
  method: 'PATCH',
  path: '/passkeys/:id',
  offered,
  authenticate: 'recent-with-factor',
  body: { name: 'PasskeyRename', schema: PasskeyRename },
  doc: {
    operationId: 'renamePasskey',
    summary: 'Rename a passkey',
    description: 'A label for its owner (1 to 64 characters). Needs a login within the last 5 minutes that used a second factor (`mfa` in its `amr`).',
    parameters: ID_PARAMETER,
    answers: {
      200: { description: 'Renamed.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'PasskeyAnswer', schema: PasskeyAnswer } },
      400: BAD_REQUEST,
      401: SESSION_UNAUTHENTICATED,
      403: FORBIDDEN,
      404: NOT_FOUND,
      501: NOT_CONFIGURED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, params, body, services }) => jsonResponse(200, await renamePasskey(await services.passkeys(), { caller, id: params.id ?? '', name: body.name })),
});

/** DELETE /passkeys/{id} -> 204, with a recent login that used a second factor. */
export const removePasskeyRoute = defineRoute<PasskeyServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'passkey_remove',
  method: 'DELETE',
  path: '/passkeys/:id',
  offered,
  authenticate: 'recent-with-factor',
  doc: {
    operationId: 'removePasskey',
    summary: 'Remove a passkey',
    description: `Needs a login within the last 5 minutes that used a second factor (\`mfa\` in its \`amr\`): a
password alone cannot take a factor away. The account's last factor takes the recovery codes
with it. The owner is mailed.
`,
    parameters: ID_PARAMETER,
    answers: {
      204: { description: 'Removed.', headers: { 'Cache-Control': NO_STORE } },
      401: SESSION_UNAUTHENTICATED,
      403: {
        ...FORBIDDEN,
        name: 'PasskeyRemovalForbidden',
        description: `\`reauthentication_required\`: the session's login is more than 5 minutes old, or used no second
factor; log in again with one (a passkey, TOTP or a recovery code) and retry.
\`insufficient_scope\`: the token lacks the scope PASSLANE_REQUIRED_SCOPE names.
`,
      },
      404: NOT_FOUND,
      501: NOT_CONFIGURED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, params, services }) => {
    await removePasskey(await services.passkeys(), { caller, id: params.id ?? '' });
    return noContent();
  },
});

/** POST /passkey/login/options -> 200 request options for a discoverable credential. */
export const passkeyLoginOptionsRoute = defineRoute<PasskeyLoginServices>({
  name: 'passkey_login_options',
  method: 'POST',
  path: '/passkey/login/options',
  doc: {
    operationId: 'passkeyLoginOptions',
    summary: 'Start a login with a passkey',
    description: `Request options for \`navigator.credentials.get()\` with no \`allowCredentials\` (the
authenticator offers its passkeys for this site) and user verification required. Its challenge
is good for 5 minutes and one login. Counted per source (PASSLANE_RATE_LIMIT_PER_IP).
`,
    answers: {
      200: { description: 'The options; answer with `POST /passkey/login`.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'PasskeyRequestOptions', schema: RequestOptions } },
      429: RATE_LIMITED,
      501: NOT_CONFIGURED,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ origin, services }) => jsonResponse(200, await passkeyLoginOptions(await services.passkeyLogin(), { sourceIp: origin.sourceIp })),
});

/** POST /passkey/login { response, deviceToken? } -> what a good POST /login answers. */
export const passkeyLoginRoute = defineRoute<PasskeyLoginServices, typeof PasskeyLoginRequest>({
  name: 'passkey_login',
  method: 'POST',
  path: '/passkey/login',
  body: { name: 'PasskeyLoginRequest', schema: PasskeyLoginRequest },
  doc: {
    operationId: 'passkeyLogin',
    summary: 'Log in with a passkey, without a password',
    description: `The browser's assertion for the options of \`POST /passkey/login/options\`, with user
verification. Answers as a good \`POST /login\` does, with \`amr\` \`["hwk"|"swk","user","mfa"]\`.
Every attempt is counted before anything is checked: against the source, then as a login of the
account its credential names (the login's limits: 429) and against the passkeys' count of wrong
assertions over their life (100, then \`factor_suspended\`).
`,
    parameters: loginRoute.doc.parameters,
    answers: {
      200: { ...loginRoute.doc.answers[200]!, body: { name: 'LoggedIn', schema: LoggedIn } },
      400: BAD_REQUEST,
      401: {
        description: '`invalid_passkey`: one answer for an unknown credential, a bad signature, a used or expired challenge, a counter gone back.',
        codes: ['invalid_passkey'],
      },
      403: {
        name: 'PasskeyLoginForbidden',
        description: `${loginRoute.doc.answers[403]!.description}${FACTOR_SUSPENDED.description}`,
        codes: ['email_not_verified', 'account_disabled', 'factor_suspended'],
      },
      429: RATE_LIMITED,
      501: NOT_CONFIGURED,
      503: MINTING_UNAVAILABLE,
    },
  },
  handle: async ({ request, body, origin, services }) =>
    loginResultResponse(
      await loginWithPasskey(await services.passkeyLogin(), {
        response: body.response as unknown as AuthenticationResponseJSON,
        sourceIp: origin.sourceIp,
        userAgent: request.headers.get('user-agent') ?? undefined,
        deviceTokens: presentedDeviceTokens(request, body.deviceToken),
      }),
    ),
});
