import { BAD_REQUEST, NO_STORE, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import type { AnswerDoc } from '../../api/operation-doc.js';
import { jsonResponse, noContent } from '../../api/responses.js';
import { defineRoute } from '../../api/route.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { CallerServices } from '../sessions/caller-services.js';
import { SESSION_INSUFFICIENT_SCOPE, SESSION_UNAUTHENTICATED } from '../sessions/session-schemas.js';
import type { FederationServices } from './dependencies.js';
import { IdentityList, LinkRequest, Identity } from './federation-schemas.js';
import { linkIdentity, listIdentities, removeIdentity } from './manage-identities.js';

const RECENT_LOGIN: AnswerDoc = {
  description: '`reauthentication_required`: the session\'s login is more than 5 minutes old; log in again. Or the token lacks the required scope (`insufficient_scope`).',
  codes: ['reauthentication_required', 'insufficient_scope', 'insufficient_user_authentication'],
};

/** GET /identities -> 200 { identities }. */
export const listIdentitiesRoute = defineRoute<FederationServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'identities',
  method: 'GET',
  path: '/identities',
  authenticate: 'session',
  doc: {
    operationId: 'listIdentities',
    summary: "The identities at providers that sign in to the token's account",
    description: 'Oldest first. Each was made by a first sign-in with its provider or linked after a login (`POST /identities/link`).\n',
    answers: {
      200: { description: 'The identities.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'IdentityList', schema: IdentityList } },
      401: SESSION_UNAUTHENTICATED,
      403: SESSION_INSUFFICIENT_SCOPE,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, services }) => jsonResponse(200, { identities: await listIdentities(await services.identities(), caller) }),
});

/** DELETE /identities/{id} -> 204. */
export const removeIdentityRoute = defineRoute<FederationServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'identity',
  method: 'DELETE',
  path: '/identities/:id',
  authenticate: 'recent',
  doc: {
    operationId: 'removeIdentity',
    summary: 'Stop an identity at a provider from signing in to the account',
    description: `Needs a login within the last 5 minutes. Never the account's last way in: an account with no
password and no passkey keeps its only identity (\`last_sign_in_method\`); set a password
(a reset) or add a passkey first.
`,
    parameters: [{ name: 'id', in: 'path', required: true, description: "An identity's `id` from `GET /identities`.", schema: { type: 'string' } }],
    answers: {
      204: { description: 'Removed.' },
      401: SESSION_UNAUTHENTICATED,
      403: RECENT_LOGIN,
      404: { description: "`identity_not_found`: no identity of the caller's account has this id.", codes: ['identity_not_found'] },
      409: { description: "`last_sign_in_method`: it is the account's only way in.", codes: ['last_sign_in_method'] },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, params, services }) => {
    await removeIdentity(await services.identities(), { caller, id: params.id ?? '' });
    return noContent();
  },
});

/** POST /identities/link { linkToken } -> 201 the identity. */
export const linkIdentityRoute = defineRoute<FederationServices & CallerServices, typeof LinkRequest, AuthenticatedSession>({
  name: 'identity_link',
  method: 'POST',
  path: '/identities/link',
  body: { name: 'LinkRequest', schema: LinkRequest },
  authenticate: 'recent',
  doc: {
    operationId: 'linkIdentity',
    summary: 'Link the identity a sign-in with a provider could not link by itself',
    description: `When a provider's verified email belongs to an account the identity is not linked to,
\`POST /oauth/token\` answers \`identity_link_required\` with a \`linkToken\` and links nothing. The
user then logs in to that account the usual way (a password, a passkey) and, within 5 minutes
of that login, posts the token here: the identity then signs in to this account too.
`,
    answers: {
      201: { description: 'Linked.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'Identity', schema: Identity } },
      400: {
        ...BAD_REQUEST,
        name: 'LinkBadRequest',
        description: `${BAD_REQUEST.description}\`invalid_token\`: the link token is unknown, used, expired, of another account, or its identity was linked elsewhere meanwhile.\n`,
        codes: [...(BAD_REQUEST.codes ?? []), 'invalid_token'],
      },
      401: SESSION_UNAUTHENTICATED,
      403: RECENT_LOGIN,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, caller, services }) => jsonResponse(201, await linkIdentity(await services.identities(), { caller, linkToken: body.linkToken })),
});
