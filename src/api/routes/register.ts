import { register } from '../../use-cases/register.js';
import { defineRoute } from '../route.js';
import { jsonResponse } from '../responses.js';
import type { ApiServices } from '../services.js';

/** POST /register: { email, password } -> 201 { userId }. */
export const registerRoute = defineRoute<Pick<ApiServices, 'register'>>({
  name: 'register',
  method: 'POST',
  path: '/register',
  json: true,
  handle: async ({ body, origin, services }) =>
    jsonResponse(201, await register(await services.register(), { body, sourceIp: origin.sourceIp })),
});
