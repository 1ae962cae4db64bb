/**
 * What the API's document (openapi.yaml) says of the API as a whole; each operation describes
 * itself (its route's `doc`, with its schemas), and scripts/generate-openapi.ts renders the
 * document from these and API_ROUTES.
 */
export const API_DOCUMENT = {
  title: 'passlane',
  summary:
    'Password registration, login, sessions, password change and reset, and email verification, issuing short-lived JWT access tokens and rotating refresh tokens.',
  description: `JSON in and out. Every error answers \`{"error":{"code":"...","message":"..."}}\`; clients
branch on \`code\`, messages are for humans. The one exception is the OAuth 2.0 token endpoint,
\`POST /token\`, which answers RFC 6749 §5.2's \`{"error":"...","error_description":"..."}\` as
OAuth clients expect (docs/oauth.md). A refused new password (register, password
change, reset) is 400 \`password_rejected\` with \`error.reason\` (\`too_short\`, \`too_long\`, \`common\`,
\`breached\`, \`context\`) and a message the person can act on. Request bodies are limited to 8 KiB (decoded),
must be \`application/json\` (optionally \`charset=utf-8\`) and are rejected before parsing when
larger. An account is its email's canonical form, the address mail is delivered to: trimmed,
NFKC, lower-cased, the domain in A-labels (\`Ada@BÜCHER.example\` is \`ada@xn--bcher-kva.example\`);
an email with an invisible, control or unassigned character (soft hyphen, zero-width space, ...)
is 400 \`invalid_request\` (packages/server/src/accounts/EMAILS.md). Unknown paths answer 404 \`not_found\` (local
server; in AWS, API Gateway answers those itself).

Login failures for an unknown email and for a wrong password are indistinguishable (same
status and body). Authentication is never decided without storage: when it is unreachable
the answer is 503 with \`Retry-After\`.

Access tokens are JWTs (\`typ: at+jwt\`, RFC 9068) signed with a key published at
\`/.well-known/jwks.json\`; default issuer \`passlane\` (\`npm start\`: its own URL), audience
\`passlane-api\`, \`client_id\` \`passlane\`, and \`scope\` when PASSLANE_TOKEN_SCOPES sets one. Discovery:
\`/.well-known/oauth-authorization-server\` (RFC 8414) and \`/.well-known/openid-configuration\`
(the same document). They carry
\`email_verified\` (OpenID Connect's claim): whether the account's owner followed a
verification or reset link. A session's tokens say \`true\` from the next refresh after the
email is verified.

Password reset and email verification send one-time links to the account's mailbox:
\`<PASSLANE_APP_URL>/reset-password#token=<token>\` and \`…/verify-email#token=<token>\`. The
token is in the fragment, so it reaches no server log; the app reads it and posts it to
\`POST /password/reset/confirm\` or \`POST /email/verify\`. A token is single-use, replaced by a
newer request, and expires (1 hour for a reset, 24 hours for verification). Nothing these
routes answer tells whether an email has an account: a reset request answers 202 with the same
body for every well-formed email, and with PASSLANE_EMAIL_VERIFICATION=true so does
registration (the mailbox's owner learns the rest).

Every login starts a session: its access token carries the session's id (\`sid\`), and its
refresh token (opaque) is exchanged at \`POST /token\` for a new pair. Each refresh token is
spent by its use. Presented again within the grace window (PASSLANE_REFRESH_GRACE_S, 10 s),
a spent token gets the same new pair (two tabs, a lost response); later it is reuse, and the
session ends (\`invalid_grant\`, its \`error_description\` says why). A session ends after
PASSLANE_SESSION_IDLE_S without a refresh (14 days) and PASSLANE_SESSION_MAX_AGE_S after its
login (30 days), on logout, on \`DELETE /sessions/{id}\` and when the account's password changes
(all but the session that changed it) or is reset. Every route taking a Bearer token refuses an access token whose
session has ended, or that names none (no \`sid\`). A password change or reset also voids the
account's outstanding reset and verification links.

Every good login also answers a device token (\`deviceToken\`, and for browsers a
\`__Host-passlane-device-<account>\` cookie: HttpOnly, Secure, SameSite=Strict). A client that
presents it at its next logins (the cookie, or the token as \`deviceToken\` in the body) is a
known device: its failures are counted against that device alone, and neither the account's
ceiling of consecutive failures that strangers can run up nor the limits of its source
address (shared behind a NAT) hold it back. Known devices are listed with the sessions,
forgotten on \`DELETE /devices/{id}\`, a sign-out of the others or of all, and a new password,
and after PASSLANE_DEVICE_TTL_S (180 days) without a good login.
`,
  license: { name: 'MIT', identifier: 'MIT' },
  servers: [{ url: 'http://localhost:3000', description: 'npm start' }],
} as const;

/**
 * What the operator API's document (openapi-admin.yaml) says of it as a whole: its own document,
 * apart from the public one, since its callers are an operator's tools and its routes are never
 * on the public API (features/operators, infra/README.md "Operator API").
 */
export const OPERATOR_API_DOCUMENT = {
  title: 'passlane operator API',
  summary: 'Find, show and list accounts; disable and enable them, end their sessions, remove a factor, send a reset mail, delete them.',
  description: `For operators, never for the public: on AWS Lambda the \`admin\` function behind API Gateway's
AWS_IAM authorization (a SigV4 signature, service \`execute-api\`, of an IAM principal whose policy
allows \`execute-api:Invoke\` on the route); on the other hosts off unless PASSLANE_ADMIN_KEYS is set,
and then \`Authorization: Bearer <admin key>\`. Every action is audited with the operator's identity
(the principal's ARN, or the key's id), and the account's owner is mailed where it changes their
access. Answers hold an account's address where it was asked for, never a hash, secret, code or
token. Errors are the public API's \`{"error":{"code":"...","message":"..."}}\`; an id or address
no account has is 404 \`user_not_found\`. The same actions from a terminal, on the table with the
operator's own AWS credentials: \`passlane users\` (packages/server/src/cli/README.md, "Operators").
`,
  license: { name: 'MIT', identifier: 'MIT' },
  servers: [{ url: 'http://localhost:3000', description: 'npm start, with PASSLANE_ADMIN_KEYS' }],
} as const;
