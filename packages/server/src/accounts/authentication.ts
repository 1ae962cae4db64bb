/**
 * Who may call a route, by the request's Bearer access token (`Route.authenticate`, src/api/route.ts):
 * - `session`: a live session, of a token with the scope PASSLANE_REQUIRED_SCOPE names and,
 *   with PASSLANE_REQUIRE_MFA, whose login used a second factor;
 * - `factor-session`: the same but PASSLANE_REQUIRE_MFA: the routes where an account gets its
 *   second factor (and lists its passkeys) cannot demand one;
 * - `recent`: a `factor-session` whose login was within the last few minutes (changing factors);
 * - `recent-with-factor`: a `recent` one whose login used a second factor (taking one away).
 */
export type Authentication = 'session' | 'factor-session' | 'recent' | 'recent-with-factor';

/** Who is behind an access token, as an `Authentication` demands; refused with the error it answers. */
export type Authenticator<C> = (authentication: Authentication, accessToken: string | undefined) => Promise<C>;
