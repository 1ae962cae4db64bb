import { logout } from './end-sessions.js';
import { bearerToken } from '../../api/bearer-token.js';
import { defineRoute } from '../../api/route.js';
import { noContent } from '../../api/responses.js';
import type { ApiServices } from '../../api/services.js';

/** POST /logout[?scope=others|global] with a Bearer token -> 204. */
export const logoutRoute = defineRoute<Pick<ApiServices, 'sessionManagement'>>({
  name: 'logout',
  method: 'POST',
  path: '/logout',
  json: false,
  handle: async ({ request, services }) => {
    const scope = new URL(request.url).searchParams.get('scope') ?? undefined;
    await logout(await services.sessionManagement(), { accessToken: bearerToken(request.headers.get('authorization') ?? undefined), scope });
    return noContent();
  },
});
