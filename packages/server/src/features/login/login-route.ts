import { login } from './login.js';
import { deviceCookie, presentedDeviceTokens } from './device-cookie.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';
import type { LoginServices } from './dependencies.js';

/**
 * POST /login: { email, password, deviceToken? } -> 200 { accessToken, tokenType, expiresIn,
 * refreshToken, refreshExpiresIn, deviceToken, deviceExpiresIn }, and the device token in a
 * `__Host-` cookie for browsers (device-cookie.ts).
 */
export const loginRoute = defineRoute<LoginServices>({
  name: 'login',
  method: 'POST',
  path: '/login',
  json: true,
  handle: async ({ request, body, origin, services }) => {
    const answer = await login(await services.login(), {
      body,
      sourceIp: origin.sourceIp,
      userAgent: request.headers.get('user-agent') ?? undefined,
      deviceTokens: presentedDeviceTokens(request, body),
    });
    const cookie = deviceCookie(answer.deviceToken, answer.deviceExpiresIn);
    return jsonResponse(200, answer, cookie === undefined ? {} : { 'set-cookie': cookie });
  },
});
