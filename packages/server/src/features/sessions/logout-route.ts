import { logout, LOGOUT_SCOPES } from './end-sessions.js';
import type { AuthenticatedSession } from './authenticate-session.js';
import type { SessionServices } from './dependencies.js';
import type { CallerServices } from './caller-services.js';
import { SESSION_INSUFFICIENT_SCOPE, SESSION_UNAUTHENTICATED } from './session-schemas.js';
import { NO_STORE, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import { noContent } from '../../api/responses.js';

/** POST /logout[?scope=others|global] with a Bearer token -> 204. */
export const logoutRoute = defineRoute<SessionServices & CallerServices, undefined, AuthenticatedSession>({
  name: 'logout',
  method: 'POST',
  path: '/logout',
  authenticate: 'session',
  doc: {
    operationId: 'logout',
    summary: "End this session, the account's other sessions, or all of them",
    parameters: [
      {
        name: 'scope',
        in: 'query',
        required: false,
        description: '`local`: the session of the token; `others`: every other session of the account; `global`: all of them.',
        schema: { type: 'string', enum: LOGOUT_SCOPES, default: 'local' },
      },
    ],
    answers: {
      204: { description: 'Ended (`others` with no other session is no error).', headers: { 'Cache-Control': NO_STORE } },
      400: { description: '`invalid_request`: `scope` is not one of `local`, `others`, `global`.', codes: ['invalid_request'] },
      401: SESSION_UNAUTHENTICATED,
      403: SESSION_INSUFFICIENT_SCOPE,
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ request, caller, services }) => {
    const scope = new URL(request.url).searchParams.get('scope') ?? undefined;
    await logout(await services.sessions(), { caller, scope });
    return noContent();
  },
});
