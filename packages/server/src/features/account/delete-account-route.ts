import { translateErrors } from '../../accounts/translate-errors.js';
import { NO_STORE, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { bearerToken } from '../../api/bearer-token.js';
import { defineRoute } from '../../api/route.js';
import { noContent } from '../../api/responses.js';
import { recentCaller, requireFactorLoginOnceEnrolled } from '../mfa/recent-login.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import { SESSION_UNAUTHENTICATED } from '../sessions/session-schemas.js';
import { deleteAccount } from './delete-account.js';
import type { AccountServices } from './dependencies.js';

/**
 * DELETE /account with a Bearer token -> 204: the owner erases their account. As for changing a
 * factor (ASVS 7.5.1): a recent login, and on an account with a second factor, one that used it,
 * so a stolen session or password alone cannot erase the account.
 */
export const deleteAccountRoute = defineRoute<AccountServices, undefined, AuthenticatedSession>({
  name: 'account',
  method: 'DELETE',
  path: '/account',
  authenticate: async ({ request, services }) => {
    const deps = await services.account();
    return translateErrors(async () => {
      const caller = await recentCaller(deps, bearerToken(request.headers.get('authorization') ?? undefined), deps.now());
      requireFactorLoginOnceEnrolled(deps, caller, await deps.mfa.read(caller.accountKey));
      return caller;
    });
  },
  doc: {
    operationId: 'deleteAccount',
    summary: "Delete the token's account and everything of it",
    description: `Erases the account, its sessions and known devices, its second factors and passkeys, and its
outstanding reset and verification links; the address gets a mail saying so and may register
again at once. Every access and refresh token of the account stops working. Needs a login within
the last 5 minutes, and on an account with a second factor, one that used it.
`,
    security: 'bearer',
    answers: {
      204: { description: 'Deleted.', headers: { 'Cache-Control': NO_STORE } },
      401: SESSION_UNAUTHENTICATED,
      403: {
        description: `\`reauthentication_required\`: the session's login is more than 5 minutes old, or the account has a
second factor and the login did not use it: log in again. \`insufficient_scope\`: the token lacks
the scope PASSLANE_REQUIRED_SCOPE names.
`,
        codes: ['reauthentication_required', 'insufficient_scope'],
      },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ caller, services }) => {
    await deleteAccount(await services.account(), { userId: caller.userId, actor: { kind: 'owner' } });
    return noContent();
  },
});
