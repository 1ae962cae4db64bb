import { changePassword } from '../../use-cases/change-password.js';
import { bearerToken } from '../bearer-token.js';
import { defineRoute } from '../route.js';
import { noContent } from '../responses.js';
import type { ApiServices } from '../services.js';

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
