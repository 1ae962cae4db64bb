import { refreshSession } from './refresh-session.js';
import type { RefreshServices } from './dependencies.js';
import { TokenRequest, TokenResponse } from './session-schemas.js';
import { NO_STORE, PRAGMA_NO_CACHE, RETRY_AFTER } from '../../api/answers.js';
import { MAX_JSON_BODY_BYTES } from '../../api/read-json-body.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, TOKEN_ENDPOINT_HEADERS } from '../../api/responses.js';

/**
 * POST /token: `{ grant_type: "refresh_token", refresh_token }` as JSON or as an OAuth 2.0 form
 * -> 200 with a new pair, in RFC 6749 §5.1's names, and every error in §5.2's flat body
 * (`errorBody: 'oauth'`): OAuth clients read both. Login's own answer keeps the API's camelCase.
 */
export const tokenRoute = defineRoute<RefreshServices, typeof TokenRequest>({
  name: 'token',
  method: 'POST',
  path: '/token',
  body: { name: 'TokenRequest', schema: TokenRequest, form: true },
  errorBody: 'oauth',
  doc: {
    operationId: 'refreshToken',
    summary: 'Spend a refresh token for a new access token and refresh token',
    description: `The OAuth 2.0 refresh grant (RFC 6749 §6), as JSON or as a form, from a public client (no
client authentication, so never 401). The presented token is spent: within the grace window
(10 s) presenting it again answers the same new pair; after it, the session ends and the
answer is \`invalid_grant\` too (the reuse is in \`error_description\` and the audit log).
Every error answers RFC 6749 §5.2's body, \`{"error":"...","error_description":"..."}\`, not
this API's, and every answer carries \`Cache-Control: no-store\` and \`Pragma: no-cache\`.
`,
    security: 'none',
    answers: {
      200: {
        description: 'A new pair.',
        headers: { 'Cache-Control': NO_STORE, Pragma: PRAGMA_NO_CACHE },
        body: { name: 'TokenResponse', schema: TokenResponse },
      },
      400: {
        description: `\`invalid_request\`: the body is not an object or not valid UTF-8 JSON, \`grant_type\` is
missing, \`refresh_token\` is missing or not a non-empty string, a form parameter is repeated,
or a form is not UTF-8. \`unsupported_grant_type\`: \`grant_type\` is not \`refresh_token\`.
\`invalid_grant\`: the refresh token is unknown, malformed, expired, or its session has ended;
or it was spent before, outside the grace window, and its session has now ended too.
`,
        codes: ['invalid_request', 'invalid_json', 'unsupported_grant_type', 'invalid_grant', 'refresh_token_reused'],
      },
      405: {
        description: 'Another method than POST (`invalid_request`, with `Allow`).',
        headers: { Allow: { required: true, schema: { type: 'string' } } },
        codes: ['method_not_allowed'],
      },
      413: { description: `The decoded body is larger than ${MAX_JSON_BODY_BYTES / 1024} KiB (\`invalid_request\`).`, codes: ['payload_too_large'] },
      415: {
        description:
          'Content-Type is neither `application/json` (with an optional UTF-8 charset) nor `application/x-www-form-urlencoded` (`invalid_request`).',
        codes: ['unsupported_media_type'],
      },
      429: {
        description: `\`temporarily_unavailable\`: this session was refreshed PASSLANE_REFRESH_LIMIT_PER_SESSION
(60) times this hour, or this address failed PASSLANE_REFRESH_FAILURES_PER_SOURCE (50)
refreshes this window. Retry after \`Retry-After\`.
`,
        headers: { 'Retry-After': RETRY_AFTER },
        codes: ['rate_limited'],
      },
      500: { description: 'An unexpected error: always `{"error":"server_error","error_description":"internal error"}`.', codes: ['internal_error'] },
      503: {
        description:
          '`temporarily_unavailable`: storage is unreachable, concurrent refreshes of one token kept racing, or the token hook gave no usable answer where its failure refuses (its own code, `token_hook_unavailable`, is in the log); nothing was decided and the refresh token stays good. Retry after `Retry-After`.',
        headers: { 'Retry-After': RETRY_AFTER },
        codes: ['temporarily_unavailable', 'token_hook_unavailable'],
      },
    },
  },
  handle: async ({ body, origin, services }) => {
    const pair = await refreshSession(await services.refresh(), { refreshToken: body.refresh_token, sourceIp: origin.sourceIp });
    return jsonResponse(
      200,
      {
        access_token: pair.accessToken,
        token_type: pair.tokenType,
        expires_in: pair.expiresIn,
        ...(pair.scope !== undefined && { scope: pair.scope }),
        refresh_token: pair.refreshToken,
        refresh_expires_in: pair.refreshExpiresIn,
      },
      TOKEN_ENDPOINT_HEADERS,
    );
  },
});
