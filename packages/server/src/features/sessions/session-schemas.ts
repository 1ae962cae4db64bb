import * as v from 'valibot';
import { checkedBy } from '../../accounts/request-fields.js';
import { UnsupportedGrantTypeError } from '../../accounts/errors.js';
import type { AnswerDoc, NamedSchema } from '../../api/operation-doc.js';

const REFRESH_TOKEN_REQUIRED = 'refresh_token must be a non-empty string';

/**
 * POST /token's body (JSON or form): `grant_type` first (missing: `invalid_request`; anything but
 * `refresh_token`: `unsupported_grant_type`, RFC 6749 §5.2), then the refresh token.
 */
export const TokenRequest = v.object({
  grant_type: v.pipe(
    v.unknown(),
    v.check((grantType) => grantType !== undefined, 'grant_type is required'),
    checkedBy((grantType: unknown) => {
      if (grantType !== 'refresh_token') throw new UnsupportedGrantTypeError();
    }),
    v.metadata({ type: 'string' }),
    v.description('`refresh_token`; any other answers 400 `unsupported_grant_type`.'),
  ),
  refresh_token: v.pipe(v.string(REFRESH_TOKEN_REQUIRED), v.nonEmpty(REFRESH_TOKEN_REQUIRED), v.description('The refresh token of the last login or refresh.')),
  client_id: v.optional(
    v.pipe(v.string('client_id must be a string'), v.description('What a public client sends (RFC 6749 §3.2.1); not checked: there is one client and no client authentication.')),
  ),
  scope: v.optional(
    v.pipe(v.string('scope must be a string'), v.description('Ignored (RFC 6749 §3.3 allows it): every access token carries the configured scopes, which the answer\'s `scope` names.')),
  ),
});

/** A whole number of seconds, at least one: the answers' lifetimes. */
export const seconds = (description: string) => v.pipe(v.number(), v.integer(), v.minValue(1), v.description(description));

/** An answer's `scope`, the access token's (login's and the token endpoint's answers alike). */
export const scopeField = v.optional(v.pipe(v.string(), v.description("The access token's scopes, space-separated (PASSLANE_TOKEN_SCOPES); absent when it has none.")));

/** A new pair, in RFC 6749 §5.1's names. */
export const TokenResponse = v.pipe(
  v.object({
    access_token: v.pipe(v.string(), v.description('A JWT carrying the session id (`sid`) and `email_verified`.')),
    token_type: v.literal('Bearer'),
    expires_in: seconds('Seconds until the access token expires.'),
    scope: scopeField,
    refresh_token: v.pipe(v.string(), v.description('The next refresh token; the one presented is spent.')),
    refresh_expires_in: seconds('Seconds until the new refresh token expires unless spent.'),
  }),
  v.description("RFC 6749 §5.1's names, for OAuth 2.0 clients."),
);

const timestamp = (description: string) => v.pipe(v.string(), v.isoTimestamp(), v.description(description));

/** What GET /sessions shows of a session (list-sessions.ts `SessionSummary`). */
export const Session = v.pipe(
  v.strictObject({
    id: v.pipe(v.string(), v.description('The session id: the `sid` of its access tokens, and what `DELETE /sessions/{id}` takes.')),
    createdAt: timestamp('The login that started it.'),
    lastUsedAt: timestamp('The login or the last refresh.'),
    expiresAt: timestamp('When it ends unless refreshed before.'),
    network: v.optional(
      v.pipe(
        v.string(),
        v.description('The network it was started from, never the address: an IPv4 /24 (`198.51.100.0/24`) or an IPv6 /48 (`2001:db8:1::/48`). Absent when unknown.'),
      ),
    ),
    client: v.pipe(
      v.string(),
      v.description("The browser or client family from the login's User-Agent (`Chrome`, `Firefox`, `curl`, ...), `unknown` without one, `other` when not recognised."),
    ),
    current: v.pipe(v.boolean(), v.description('The session of the access token that asked.')),
  }),
  v.description('What is shown of a session; never a token.'),
);

/** What GET /sessions shows of a known device (list-sessions.ts `DeviceSummary`). */
export const Device = v.pipe(
  v.strictObject({
    id: v.pipe(v.string(), v.description('What `DELETE /devices/{id}` takes.')),
    createdAt: timestamp('The login that made it.'),
    lastUsedAt: timestamp('Its last good login.'),
    expiresAt: timestamp('When it is forgotten unless a good login presents it before.'),
    network: v.optional(v.pipe(v.string(), v.description('The network of its last good login: an IPv4 /24 or an IPv6 /48. Absent when unknown.'))),
    client: v.pipe(v.string(), v.description('The browser or client family of its last good login.')),
    current: v.pipe(v.boolean(), v.description('The device the asking session was started from.')),
  }),
  v.description('What is shown of a known device; never its token.'),
);

/** GET /sessions's answer. */
export const SessionList = v.object({
  sessions: v.pipe(v.array(Session), v.description("The account's live sessions, newest first.")),
  devices: v.pipe(v.array(Device), v.description("The account's known devices, the most recently used first.")),
});

export const SESSION_LIST_BODY: NamedSchema = {
  name: 'SessionList',
  schema: SessionList,
  parts: [
    { name: 'Session', schema: Session },
    { name: 'Device', schema: Device },
  ],
};

/** The 401 of the routes that take a Bearer token and check its session. */
export const SESSION_UNAUTHENTICATED: AnswerDoc = {
  name: 'SessionUnauthenticated',
  description: `\`unauthenticated\`: no Bearer token, or it is invalid or expired, or its session has ended
(logged out, deleted, refresh token reused, password changed elsewhere, timed out).
`,
  headers: { 'WWW-Authenticate': { required: true, description: '`Bearer` (RFC 6750 §3).', schema: { type: 'string' } } },
  codes: ['unauthenticated'],
};

/** The 403 of the routes that take a Bearer token, where a scope is required (PASSLANE_REQUIRED_SCOPE). */
export const SESSION_INSUFFICIENT_SCOPE: AnswerDoc = {
  name: 'SessionInsufficientScope',
  description: `\`insufficient_scope\`: the access token is good but lacks the scope PASSLANE_REQUIRED_SCOPE names
(set on this deployment); a refreshed token would carry the same scopes (RFC 6750 §3.1).
\`insufficient_user_authentication\`: with PASSLANE_REQUIRE_MFA=true, the token's login used no second
factor (\`mfa\` not in its \`amr\`; RFC 9470): log in again with one.
`,
  headers: { 'WWW-Authenticate': { required: true, description: '`Bearer error="insufficient_scope"` or `Bearer error="insufficient_user_authentication"`.', schema: { type: 'string' } } },
  codes: ['insufficient_scope', 'insufficient_user_authentication'],
};
