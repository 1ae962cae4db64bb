import { logout } from './end-sessions.js';
import { bearerToken } from '../../api/bearer-token.js';
import { defineRoute } from '../../api/route.js';
import { noContent } from '../../api/responses.js';
import type { SessionServices } from './dependencies.js';

/** POST /logout[?scope=others|global] with a Bearer token -> 204. */
export const logoutRoute = defineRoute<SessionServices>({
  name: 'logout',
  method: 'POST',
  path: '/logout',
  json: false,
  handle: async ({ request, services }) => {
    const scope = new URL(request.url).searchParams.get('scope') ?? undefined;
    await logout(await services.sessions(), { accessToken: bearerToken(request.headers.get('authorization') ?? undefined), scope });
    return noContent();
  },
});
