import type { Actor } from '../../accounts/audit-events.js';
import { InvalidRequestError } from '../../accounts/errors.js';
import type { RequestOrigin } from '../../api/api-host.js';
import { BAD_REQUEST, NO_STORE, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { bearerToken } from '../../api/bearer-token.js';
import type { AnswerDoc, ParameterDoc } from '../../api/operation-doc.js';
import { defineRoute, type AnyRoute } from '../../api/route.js';
import { jsonResponse, noContent, type ApiResponse } from '../../api/responses.js';
import { deleteAccount } from '../account/delete-account.js';
import { disableAccount, enableAccount } from '../account/disable-account.js';
import { endAllSessions } from '../account/end-all-sessions.js';
import { findUserByEmail } from '../account/find-user-by-email.js';
import { listUsers } from '../account/list-users.js';
import { removeFactor, type FactorToRemove } from '../account/remove-factor.js';
import { sendPasswordReset } from '../account/send-password-reset.js';
import { showUser } from '../account/show-user.js';
import type { OperatorDependencies, OperatorServices } from './dependencies.js';

/**
 * The operator API (`/admin/...`): never among the public API's routes (API_ROUTES). Served on
 * Lambda by the admin function behind AWS_IAM authorization, elsewhere only where
 * PASSLANE_ADMIN_KEYS is set (README.md here). Every route first asks who calls
 * (OperatorAuthentication), before it reads anything of the request but its headers, and hands
 * that operator to the use case, which audits it.
 */
function operatorRoute(route: {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  summary: string;
  description?: string;
  parameters?: readonly ParameterDoc[];
  answers: Readonly<Record<number, AnswerDoc>>;
  act: (input: { deps: OperatorDependencies; actor: Actor; params: Record<string, string>; url: URL }) => Promise<ApiResponse>;
}) {
  return defineRoute<OperatorServices>({
    name: route.name,
    method: route.method,
    path: route.path,
    doc: {
      operationId: route.name,
      summary: route.summary,
      ...(route.description !== undefined && { description: route.description }),
      parameters: route.parameters ?? [USER_ID],
      answers: { ...route.answers, 401: OPERATOR_UNAUTHENTICATED, 503: TEMPORARILY_UNAVAILABLE },
    },
    handle: async ({ request, params, origin, services }) => {
      const deps = await services.operators();
      const actor = await identify(deps, request, origin);
      return route.act({ deps, actor, params, url: new URL(request.url) });
    },
  });
}

function identify(deps: OperatorDependencies, request: Request, origin: RequestOrigin): Promise<Actor> {
  return deps.operatorAuthentication.identify({ bearer: bearerToken(request.headers.get('authorization') ?? undefined), principal: origin.principal });
}

const USER_ID: ParameterDoc = { name: 'id', in: 'path', required: true, description: "The account's user id (the access tokens' `sub`).", schema: { type: 'string' } };
const OPERATOR_UNAUTHENTICATED: AnswerDoc = {
  description: 'No operator: no admin key or a wrong one (`Authorization: Bearer <key>`), or, on Lambda, no IAM principal (`unauthenticated`).',
  codes: ['unauthenticated'],
};
const USER_NOT_FOUND: AnswerDoc = { description: 'No account has this id (`user_not_found`).', codes: ['user_not_found'] };
const USER: AnswerDoc = { description: 'The account: never a hash, a secret or a code.', headers: { 'Cache-Control': NO_STORE } };
const DONE: AnswerDoc = { description: 'Done; the owner is mailed.', headers: { 'Cache-Control': NO_STORE } };
const DEFAULT_LIMIT = 50;

/** GET /admin/users?email= finds one account by its address; without `email`, a page of accounts (`cursor`, `limit`). */
export const findOrListUsersRoute = operatorRoute({
  name: 'adminListUsers',
  method: 'GET',
  path: '/admin/users',
  summary: 'Find an account by address, or list accounts',
  description: 'With `email`: that address\'s account (as `GET /admin/users/{id}`). Without: a page of accounts in the table\'s order, and the `cursor` of the next (absent at the end).',
  parameters: [
    { name: 'email', in: 'query', required: false, description: 'An address, in any form (made canonical as a login makes it).', schema: { type: 'string' } },
    { name: 'cursor', in: 'query', required: false, description: 'The `cursor` of the previous page.', schema: { type: 'string' } },
    { name: 'limit', in: 'query', required: false, description: `Accounts per page, 1 to 100 (default ${DEFAULT_LIMIT}).`, schema: { type: 'integer' } },
  ],
  answers: { 200: USER, 400: BAD_REQUEST, 404: { description: 'No account has this address (`user_not_found`).', codes: ['user_not_found'] } },
  act: async ({ deps, actor, url }) => {
    const email = url.searchParams.get('email');
    if (email !== null) return jsonResponse(200, await findUserByEmail(deps, email, actor), { 'cache-control': 'no-store' });
    const cursor = url.searchParams.get('cursor');
    const limitText = url.searchParams.get('limit');
    const limit = limitText === null ? DEFAULT_LIMIT : /^\d{1,3}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (Number.isNaN(limit)) throw new InvalidRequestError('limit must be a whole number from 1 to 100', 'limit');
    return jsonResponse(200, await listUsers(deps, { limit, actor, ...(cursor !== null && { cursor }) }), { 'cache-control': 'no-store' });
  },
});

export const showUserRoute = operatorRoute({
  name: 'adminShowUser',
  method: 'GET',
  path: '/admin/users/:id',
  summary: 'One account: its state, factor kinds, passkeys and session count',
  answers: { 200: USER, 404: USER_NOT_FOUND },
  act: async ({ deps, actor, params }) => jsonResponse(200, await showUser(deps, params.id ?? '', actor), { 'cache-control': 'no-store' }),
});

export const disableUserRoute = operatorRoute({
  name: 'adminDisableUser',
  method: 'POST',
  path: '/admin/users/:id/disable',
  summary: 'Disable the account: every session ends, no login until enabled',
  answers: { 204: DONE, 404: USER_NOT_FOUND },
  act: async ({ deps, actor, params }) => (await disableAccount(deps, { userId: params.id ?? '', actor }), noContent()),
});

export const enableUserRoute = operatorRoute({
  name: 'adminEnableUser',
  method: 'POST',
  path: '/admin/users/:id/enable',
  summary: 'Enable the account again: logins work, no session comes back',
  answers: { 204: DONE, 404: USER_NOT_FOUND },
  act: async ({ deps, actor, params }) => (await enableAccount(deps, { userId: params.id ?? '', actor }), noContent()),
});

export const endUserSessionsRoute = operatorRoute({
  name: 'adminEndUserSessions',
  method: 'POST',
  path: '/admin/users/:id/end-sessions',
  summary: 'End every session of the account and forget its devices',
  answers: { 200: { ...DONE, description: 'Ended: how many sessions and devices; the owner is mailed.' }, 404: USER_NOT_FOUND },
  act: async ({ deps, actor, params }) => jsonResponse(200, await endAllSessions(deps, { userId: params.id ?? '', actor }), { 'cache-control': 'no-store' }),
});

export const sendUserResetRoute = operatorRoute({
  name: 'adminSendUserReset',
  method: 'POST',
  path: '/admin/users/:id/send-reset',
  summary: "Mail the owner a password reset link (to the account's address only)",
  answers: { 200: { description: "`outcome`: `sent`, `not_sent` (no mail transport) or `mail_failed`.", headers: { 'Cache-Control': NO_STORE } }, 404: USER_NOT_FOUND },
  act: async ({ deps, actor, params }) => jsonResponse(200, await sendPasswordReset(deps, { userId: params.id ?? '', actor }), { 'cache-control': 'no-store' }),
});

const FACTORS = ['totp', 'recovery_codes', 'all'] as const;

export const removeUserFactorRoute = operatorRoute({
  name: 'adminRemoveUserFactor',
  method: 'DELETE',
  path: '/admin/users/:id/factors/:factor',
  summary: 'Remove a factor: TOTP, the recovery codes, or all of them',
  parameters: [USER_ID, { name: 'factor', in: 'path', required: true, description: '`totp`, `recovery_codes` or `all`.', schema: { type: 'string', enum: [...FACTORS] } }],
  answers: { 200: { description: '`removed`: false when it was not there. The owner is mailed.', headers: { 'Cache-Control': NO_STORE } }, 400: BAD_REQUEST, 404: USER_NOT_FOUND },
  act: async ({ deps, actor, params }) => {
    const factor = params.factor ?? '';
    if (!(FACTORS as readonly string[]).includes(factor)) throw new InvalidRequestError(`factor must be one of ${FACTORS.join(', ')}`, 'factor');
    return jsonResponse(200, await removeFactor(deps, { userId: params.id ?? '', actor, factor: factor as FactorToRemove }), { 'cache-control': 'no-store' });
  },
});

export const removeUserPasskeyRoute = operatorRoute({
  name: 'adminRemoveUserPasskey',
  method: 'DELETE',
  path: '/admin/users/:id/passkeys/:credentialId',
  summary: 'Remove one passkey (an attacker\'s, or a lost one)',
  parameters: [USER_ID, { name: 'credentialId', in: 'path', required: true, description: "A passkey's `id` from `GET /admin/users/{id}`.", schema: { type: 'string' } }],
  answers: { 200: { description: '`removed`: false when it was not there. The owner is mailed.', headers: { 'Cache-Control': NO_STORE } }, 404: USER_NOT_FOUND },
  act: async ({ deps, actor, params }) =>
    jsonResponse(200, await removeFactor(deps, { userId: params.id ?? '', actor, factor: { passkey: params.credentialId ?? '' } }), { 'cache-control': 'no-store' }),
});

export const deleteUserRoute = operatorRoute({
  name: 'adminDeleteUser',
  method: 'DELETE',
  path: '/admin/users/:id',
  summary: 'Delete the account and every item of it',
  answers: { 204: DONE, 404: USER_NOT_FOUND },
  act: async ({ deps, actor, params }) => (await deleteAccount(deps, { userId: params.id ?? '', actor }), noContent()),
});

/** The operator API, in one list: what the admin function (Lambda) and the Node host with admin keys serve. */
export const OPERATOR_ROUTES: readonly AnyRoute<OperatorServices>[] = [
  findOrListUsersRoute,
  showUserRoute,
  disableUserRoute,
  enableUserRoute,
  endUserSessionsRoute,
  sendUserResetRoute,
  removeUserFactorRoute,
  removeUserPasskeyRoute,
  deleteUserRoute,
];
