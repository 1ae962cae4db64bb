import { login } from '../../use-cases/login.js';
import { defineRoute } from '../route.js';
import { jsonResponse } from '../responses.js';
import type { ApiServices } from '../services.js';

/** POST /login: { email, password } -> 200 { accessToken, tokenType, expiresIn, refreshToken, refreshExpiresIn }. */
export const loginRoute = defineRoute<Pick<ApiServices, 'auth'>>({
  name: 'login',
  method: 'POST',
  path: '/login',
  json: true,
  handle: async ({ request, body, origin, services }) =>
    jsonResponse(200, await login(await services.auth(), { body, sourceIp: origin.sourceIp, userAgent: request.headers.get('user-agent') ?? undefined })),
});
