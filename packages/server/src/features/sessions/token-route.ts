import { refreshSession } from './refresh-session.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';
import type { RefreshServices } from './dependencies.js';

/**
 * POST /token: `{ grant_type: "refresh_token", refresh_token }` as JSON or as an OAuth 2.0 form
 * -> 200 with a new pair, in RFC 6749 §5.1's names (OAuth clients read them; login's own
 * response keeps the API's camelCase).
 */
export const tokenRoute = defineRoute<RefreshServices>({
  name: 'token',
  method: 'POST',
  path: '/token',
  json: true,
  form: true,
  handle: async ({ body, origin, services }) => {
    const pair = await refreshSession(await services.refresh(), { body, sourceIp: origin.sourceIp });
    return jsonResponse(200, {
      access_token: pair.accessToken,
      token_type: pair.tokenType,
      expires_in: pair.expiresIn,
      refresh_token: pair.refreshToken,
      refresh_expires_in: pair.refreshExpiresIn,
    });
  },
});
