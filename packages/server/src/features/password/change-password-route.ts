import { changePassword } from './change-password.js';
import { bearerToken } from '../../api/bearer-token.js';
import { defineRoute } from '../../api/route.js';
import { noContent } from '../../api/responses.js';
import type { ApiServices } from '../../api/services.js';

/** POST /password with a Bearer token: { currentPassword, newPassword } -> 204. */
export const changePasswordRoute = defineRoute<Pick<ApiServices, 'account'>>({
  name: 'password',
  method: 'POST',
  path: '/password',
  json: true,
  handle: async ({ request, body, origin, services }) => {
    const accessToken = bearerToken(request.headers.get('authorization') ?? undefined);
    await changePassword(await services.account(), { accessToken, body, sourceIp: origin.sourceIp });
    return noContent();
  },
});
