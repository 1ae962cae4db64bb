import { changePassword } from './change-password.js';
import { bearerToken } from '../../api/bearer-token.js';
import { defineRoute } from '../../api/route.js';
import { noContent } from '../../api/responses.js';
import type { PasswordServices } from './dependencies.js';

/** POST /password with a Bearer token: { currentPassword, newPassword } -> 204. */
export const changePasswordRoute = defineRoute<PasswordServices>({
  name: 'password',
  method: 'POST',
  path: '/password',
  json: true,
  handle: async ({ request, body, origin, services }) => {
    const accessToken = bearerToken(request.headers.get('authorization') ?? undefined);
    await changePassword(await services.password(), { accessToken, body, sourceIp: origin.sourceIp });
    return noContent();
  },
});
