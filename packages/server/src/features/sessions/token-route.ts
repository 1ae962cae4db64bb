import { refreshSession } from './refresh-session.js';
import type { RefreshServices } from './dependencies.js';
import { TokenRequest, TokenResponse } from './session-schemas.js';
import { NO_STORE, RETRY_AFTER, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';

/**
 * POST /token: `{ grant_type: "refresh_token", refresh_token }` as JSON or as an OAuth 2.0 form
 * -> 200 with a new pair, in RFC 6749 §5.1's names (OAuth clients read them; login's own
 * response keeps the API's camelCase).
 */
export const tokenRoute = defineRoute<RefreshServices, typeof TokenRequest>({
  name: 'token',
  method: 'POST',
  path: '/token',
  body: { name: 'TokenRequest', schema: TokenRequest, form: true },
  doc: {
    operationId: 'refreshToken',
    summary: 'Spend a refresh token for a new access token and refresh token',
    description: `The OAuth 2.0 refresh grant (RFC 6749 §6), as JSON or as a form. The presented token is
spent: within the grace window (10 s) presenting it again answers the same new pair;
after it, the session ends (\`refresh_token_reused\`). Errors answer this API's error body
(\`error.code\` holds RFC 6749 §5.2's code), not §5.2's flat one.
`,
    security: 'none',
    answers: {
      200: { description: 'A new pair.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'TokenResponse', schema: TokenResponse } },
      400: {
        description: `\`invalid_request\`: the body is not an object, \`grant_type\` is missing, \`refresh_token\`
is missing or not a non-empty string, a form parameter is repeated, or a form is not
UTF-8. \`invalid_json\`: the body is not valid UTF-8 JSON. \`unsupported_grant_type\`:
\`grant_type\` is not \`refresh_token\`.
`,
        codes: ['invalid_request', 'invalid_json', 'unsupported_grant_type'],
      },
      401: {
        description: `\`invalid_grant\`: the refresh token is unknown, malformed, expired, or its session has
ended. \`refresh_token_reused\`: it was spent before, outside the grace window; its
session has now ended too.
`,
        codes: ['invalid_grant', 'refresh_token_reused'],
      },
      415: {
        description:
          'Content-Type is neither `application/json` (with an optional UTF-8 charset) nor `application/x-www-form-urlencoded` (`unsupported_media_type`).',
        codes: ['unsupported_media_type'],
      },
      429: {
        description: `\`rate_limited\`: this session was refreshed PASSLANE_REFRESH_LIMIT_PER_SESSION (60)
times this hour, or this address failed PASSLANE_REFRESH_FAILURES_PER_SOURCE (50)
refreshes this window.
`,
        headers: { 'Retry-After': RETRY_AFTER },
        codes: ['rate_limited'],
      },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, origin, services }) => {
    const pair = await refreshSession(await services.refresh(), { refreshToken: body.refresh_token, sourceIp: origin.sourceIp });
    return jsonResponse(200, {
      access_token: pair.accessToken,
      token_type: pair.tokenType,
      expires_in: pair.expiresIn,
      refresh_token: pair.refreshToken,
      refresh_expires_in: pair.refreshExpiresIn,
    });
  },
});
