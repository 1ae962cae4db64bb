import { register } from './register.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';
import type { RegisterServices } from './dependencies.js';
import { ACCEPTED } from '../recovery/recovery-routes.js';

/**
 * POST /register: { email, password } -> 201 { userId }; with email verification on, 202 and
 * the same body for a new and a taken email (the mailbox's owner learns which it was).
 */
export const registerRoute = defineRoute<RegisterServices>({
  name: 'register',
  method: 'POST',
  path: '/register',
  json: true,
  handle: async ({ body, origin, services }) => {
    const result = await register(await services.register(), { body, sourceIp: origin.sourceIp });
    return 'userId' in result ? jsonResponse(201, result) : jsonResponse(202, ACCEPTED);
  },
});
