/**
 * One contract, seven hosts: the same requests through Lambda (in-process events), the Node
 * server, workerd, Vercel's edge-runtime, Deno, Bun and serverless-offline (`npm run offline`:
 * serverless.yml's routes, the packaged functions), each against dynalite on loopback. Every
 * answer must match openapi.yaml (status, body schema, required headers), and every host must
 * answer exactly as the Lambda functions do (status, error code, body fields, the headers a
 * client acts on). A route a host does not serve, or serves differently, fails here. Every host
 * sends its mail through the real SES client to one capture endpoint on loopback, where the
 * script reads the links (password reset, email verification) as a user would. Browsers on other
 * origins are asked for too: preflights and answers for a listed origin, another one, and the
 * public keys and discovery, which answer any.
 */
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});
import { API_ROUTES } from '../packages/server/src/wiring/api-routes.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { HOST_NAMES, startHost, type HostName, type HostRequest, type RunningHost } from './support/api-hosts.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { contractErrors, errorCodeOf, specPathOf, type HttpAnswer } from './support/openapi.js';
import { startSesCapture, type SesCapture } from './support/ses-capture.js';
import { startRangeServer, type RangeServer } from './support/range-server.js';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { softwareAuthenticator } from './support/software-authenticator.js';
import { startOidcProvider, type TestOidcProvider } from './support/oidc-provider.js';
import { throughProvider } from './support/provider-browser.js';
import * as oauth from 'oauth4webapi';
import { newWebhookSecret, startHookReceiver, type HookReceiver } from './support/hook-receiver.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'another long passphrase';
/** The password a reset link sets. */
const RESET_PASSWORD = 'a passphrase from the reset link';
/** On the bundled blocklist once folded ('password123'). */
const COMMON_PASSWORD = 'Password123';
/** Not on the blocklist, but in the breach corpus the local range server serves (every host checks it there). */
const BREACHED_PASSWORD = 'a passphrase that leaked long ago';
/** Where every host's mail goes out from, and the app its links open (SES wants https). */
const MAIL_FROM = 'Passlane <no-reply@passlane.test>';
const APP_URL = 'https://app.passlane.test';
/**
 * Passkeys: the app's origin is where the browser answers from (clientDataJSON), on a
 * subdomain of the relying party; the same on every host, whatever its own URL.
 */
const WEBAUTHN_RP_ID = 'passlane.test';
const WEBAUTHN_ORIGIN = APP_URL;
/** The one origin PASSLANE_CORS_ORIGINS lists (the app's), and one it does not. */
const LISTED_ORIGIN = APP_URL;
const OTHER_ORIGIN = 'https://elsewhere.example';
/** What every host signs its AWS requests with (dynalite and the SES capture accept anything; the capture records it). */
const AWS_REGION = 'eu-west-1';
const AWS_ACCESS_KEY_ID = 'AKIDCONTRACT';
/** Failures of one email from one source before the next attempt must wait. */
const FAILURE_LIMIT = 2;
/** Refreshes of one session per hour: the script's refreshes of its first session reach it. */
const REFRESH_LIMIT = 2;
/** How long a spent refresh token may be presented again for the same new pair (the default, stated). */
const GRACE_SECONDS = 10;
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
/** The headers a client acts on, compared across hosts (values that vary per request are compared by presence). */
const COMPARED_HEADERS = [
  'content-type',
  'cache-control',
  'pragma',
  'allow',
  'www-authenticate',
  'x-content-type-options',
  'x-frame-options',
  'strict-transport-security',
  'cross-origin-resource-policy',
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
];

interface Step {
  label: string;
  request: HostRequest;
  status: number;
  /** The error code the answer must carry, for error answers. */
  code?: string;
}

type Transcript = Array<Step & { answer: HttpAnswer }>;
type Body = Record<string, unknown> | undefined;

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const post = (path: string, body: unknown, headers: Record<string, string> = {}): HostRequest => {
  const request = json(body);
  return { method: 'POST', path, headers: { ...request.headers, ...headers }, body: request.body };
};
/** An OAuth 2.0 client's token request: a form, as a string when it must say something URLSearchParams would not. */
const form = (path: string, fields: Record<string, string> | string): HostRequest => ({
  method: 'POST',
  path,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
});
/** A browser's preflight: the page's origin, and the method and headers it means to send. */
const preflight = (path: string, origin: string, method: string, headers = 'content-type'): HostRequest => ({
  method: 'OPTIONS',
  path,
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
});
const isPreflight = (request: HostRequest) => request.method === 'OPTIONS' && request.headers?.['access-control-request-method'] !== undefined;
const bearer = (body: Body): Record<string, string> => ({ authorization: `Bearer ${String(body?.accessToken ?? body?.access_token)}` });
const refresh = (refreshToken: unknown) => post('/token', { grant_type: 'refresh_token', refresh_token: refreshToken });
/** The session id an access token carries (`sid`): what GET /sessions lists and DELETE /sessions/{id} takes. */
function sidOf(body: Body): string {
  try {
    return String(decodeJwt(String(body?.accessToken ?? body?.access_token)).sid);
  } catch {
    return 'no access token';
  }
}
const sessionsOf = (body: Body) => (body?.sessions ?? []) as Array<Record<string, unknown>>;
const devicesOf = (body: Body) => (body?.devices ?? []) as Array<Record<string, unknown>>;
/** How a browser sends back what a login's Set-Cookie kept: `name=value`. */
const cookieOf = (setCookie: string | undefined): string => setCookie?.split(';')[0] ?? 'no cookie';
const emailVerifiedOf = (body: Body): unknown => {
  try {
    return decodeJwt(String(body?.accessToken ?? body?.access_token)).email_verified;
  } catch {
    return 'no access token';
  }
};

/** The SendEmail requests the capture received for one address. */
const mailsTo = (ses: SesCapture, to: string) => ses.requests.filter((request) => request.body.Destination?.ToAddresses?.includes(to));

/**
 * What a user does with the newest mail to `to` linking to `page`: opens `<app><page>#token=...`
 * and the app posts the fragment. The link must be the same in the text and the HTML body, the
 * mail from PASSLANE_MAIL_FROM and signed with the host's AWS settings; anything else is a
 * complaint (and without such a mail, a token nobody was sent).
 */
function mailedToken(ses: SesCapture, to: string, page: string, complain: (what: string, detail: unknown) => void): string {
  const link = new RegExp(`${APP_URL.replace(/[.]/g, '\\.')}${page}#token=([0-9a-f]{16}\\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])`);
  const mail = mailsTo(ses, to).findLast((request) => link.test(request.body.Content?.Simple?.Body?.Text?.Data ?? ''));
  if (mail === undefined) {
    complain(`a mail to the account with a ${page} link`, mailsTo(ses, to).map((request) => request.body.Content?.Simple?.Subject?.Data));
    return 'no mailed token';
  }
  const { Text, Html } = mail.body.Content?.Simple?.Body ?? {};
  const token = link.exec(Text?.Data ?? '')![1]!;
  if (!Html?.Data.includes(`${page}#token=${token}`)) complain(`the HTML body of the ${page} mail has the text body's link`, Html?.Data);
  if (mail.body.FromEmailAddress !== MAIL_FROM) complain('the mail is from PASSLANE_MAIL_FROM', mail.body.FromEmailAddress);
  // SigV4 with the host's AWS settings, as AWS would require.
  const credential = `Credential=${AWS_ACCESS_KEY_ID}/`;
  const authorization = String(mail.headers.authorization);
  if (!authorization.startsWith(`AWS4-HMAC-SHA256 ${credential}`) || !authorization.includes(`/${AWS_REGION}/ses/aws4_request`)) {
    complain('SendEmail is signed for SES in AWS_REGION with AWS_ACCESS_KEY_ID', authorization.split(',')[0]);
  }
  return token;
}

/**
 * Wall-clock hours are the per-session refresh windows: the script's refreshes that reach the
 * limit must fall in one, so they do not start in the last seconds of an hour.
 */
async function clearOfHourBoundary(seconds: number): Promise<void> {
  const left = 3600 - ((Date.now() / 1000) % 3600);
  if (left < seconds) await new Promise((resolve) => setTimeout(resolve, (left + 1) * 1000));
}

/**
 * The script every host runs, in order against one account: each route's success and each
 * documented failure the host itself decides. Returns the answers and whatever the answers
 * said that the statuses alone do not show (a grace answer that is not the same pair, a session
 * list without the caller's session, ...).
 */
async function runScript(host: RunningHost, ses: SesCapture, provider: TestOidcProvider): Promise<{ transcript: Transcript; wrong: string[] }> {
  const email = `contract-${randomUUID()}@example.test`;
  const transcript: Transcript = [];
  const wrong: string[] = [];
  const step = async (label: string, status: number, request: HostRequest, code?: string): Promise<Body> => {
    const answer = await host.send(request);
    transcript.push({ label, request, status, ...(code !== undefined && { code }), answer });
    return answer.body === '' || answer.statusCode !== status ? undefined : (JSON.parse(answer.body) as Record<string, unknown>);
  };
  const expectThat = (label: string, holds: boolean, detail: unknown) => {
    if (!holds) wrong.push(`${label}: ${JSON.stringify(detail)}`);
  };
  const credentials = (password: string) => ({ email, password });

  await step('register', 201, post('/register', credentials(PASSWORD)));
  await step('register again', 409, post('/register', credentials(PASSWORD)), 'account_exists');
  await step('register, bad email', 400, post('/register', { email: 'nope', password: PASSWORD }), 'invalid_request');
  // The password rules, on every host: refused before anything is stored, with the reason.
  const rejected = async (label: string, request: HostRequest, reason: string) => {
    await step(label, 400, request, 'password_rejected');
    const { body } = transcript.at(-1)!.answer;
    const error = body === '' ? undefined : (JSON.parse(body) as { error?: { reason?: string } }).error;
    expectThat(`${label}: reason ${reason}`, error?.reason === reason, error);
  };
  const stranger = `fresh-${randomUUID()}@example.test`;
  await rejected('register, a common password', post('/register', { email: stranger, password: COMMON_PASSWORD }), 'common');
  await rejected('register, too short', post('/register', { email: stranger, password: '🔑'.repeat(7) }), 'too_short');
  await rejected('register, the email\'s name in the password', post('/register', { email: stranger, password: `my ${stranger.split('@')[0]} passphrase` }), 'context');
  await rejected('register, a breached password', post('/register', { email: stranger, password: BREACHED_PASSWORD }), 'breached');
  await step('register, bad JSON', 400, post('/register', '{'), 'invalid_json');
  await step('register, body too large', 413, post('/register', { email, password: 'x'.repeat(9000) }), 'payload_too_large');
  await step('register, not JSON', 415, { method: 'POST', path: '/register', headers: { 'content-type': 'text/plain' }, body: '{}' }, 'unsupported_media_type');
  await step('register, wrong method', 405, { method: 'GET', path: '/register' }, 'method_not_allowed');
  const first = await step('login', 200, post('/login', credentials(PASSWORD)));
  // The device token, as a field and as a __Host- cookie a browser keeps for this account.
  const setCookie = transcript.at(-1)!.answer.headers['set-cookie'];
  const account = String(first?.deviceToken).split('.')[0];
  expectThat(
    'login sets the device token in a __Host- cookie: HttpOnly, Secure, SameSite=Strict, Path=/',
    setCookie?.startsWith(`__Host-passlane-device-${account}=${String(first?.deviceToken)};`) === true &&
      ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/', `Max-Age=${String(first?.deviceExpiresIn)}`].every((attribute) => setCookie.split(/;\s*/).includes(attribute)),
    setCookie,
  );
  await step('login, wrong password', 401, post('/login', credentials('wrong password here')), 'invalid_credentials');
  await step('login, no password', 400, post('/login', { email }), 'invalid_request');
  await step('login, wrong method', 405, { method: 'PUT', path: '/login' }, 'method_not_allowed');

  // Refresh: the first session's token is spent, presented again within the grace window, and
  // the new one spent as a form; the first, two rotations old, is reuse whatever the clock says.
  await clearOfHourBoundary(15);
  const refreshed = await step('token, refresh (JSON)', 200, refresh(first?.refreshToken));
  const retried = await step('token, the spent token again within the grace window', 200, refresh(first?.refreshToken));
  expectThat('the grace answer is the same new refresh token', retried?.refresh_token === refreshed?.refresh_token, [retried?.refresh_token, refreshed?.refresh_token]);
  expectThat('a refresh answers a new refresh token', typeof refreshed?.refresh_token === 'string' && refreshed.refresh_token !== first?.refreshToken, refreshed?.refresh_token);
  expectThat('a refreshed access token names the same session', sidOf(refreshed) === sidOf(first), [sidOf(refreshed), sidOf(first)]);
  const rotated = await step('token, refresh (form)', 200, form('/token', { grant_type: 'refresh_token', refresh_token: String(refreshed?.refresh_token) }));
  await step('token, over the per-session limit', 429, refresh(rotated?.refresh_token), 'temporarily_unavailable');
  await step('token, garbage', 400, refresh('garbage'), 'invalid_grant');
  await step('token, unsupported grant type', 400, post('/token', { grant_type: 'password', username: email, password: PASSWORD }), 'unsupported_grant_type');
  await step('token, no refresh_token', 400, form('/token', { grant_type: 'refresh_token' }), 'invalid_request');
  await step('token, repeated form parameter', 400, form('/token', `grant_type=refresh_token&refresh_token=a&refresh_token=b`), 'invalid_request');
  await step('token, bad JSON', 400, post('/token', '{'), 'invalid_request');
  await step('token, neither JSON nor a form', 415, { method: 'POST', path: '/token', headers: { 'content-type': 'text/plain' }, body: 'grant_type=refresh_token' }, 'invalid_request');
  await step('token, wrong method', 405, { method: 'GET', path: '/token' }, 'invalid_request');
  await step('token, reuse of a spent token', 400, refresh(first?.refreshToken), 'invalid_grant');
  await step('token, the reused session\'s live token', 400, refresh(rotated?.refresh_token), 'invalid_grant');
  await step('sessions, the reused session\'s access token', 401, { method: 'GET', path: '/sessions', headers: bearer(rotated) }, 'unauthenticated');

  // Sessions: two devices; one ends the other, then itself.
  const second = await step('login, a second device', 200, post('/login', credentials(PASSWORD)));
  const third = await step('login, a third device (Chrome)', 200, post('/login', credentials(PASSWORD), { 'user-agent': CHROME }));
  const listed = await step('sessions', 200, { method: 'GET', path: '/sessions', headers: bearer(third) });
  const sessions = sessionsOf(listed);
  const devices = devicesOf(listed);
  expectThat('every login made a known device, listed without its token', devices.length === 3 && !JSON.stringify(listed).includes(String(third?.deviceToken).split('.')[2] ?? 'none'), devices);
  const otherDevice = String(devices.find((device) => device.current !== true)?.id);
  await step('device, forget one', 204, { method: 'DELETE', path: `/devices/${otherDevice}`, headers: bearer(third) });
  await step('device, forget it again', 404, { method: 'DELETE', path: `/devices/${otherDevice}`, headers: bearer(third) }, 'device_not_found');
  await step('device, no token', 401, { method: 'DELETE', path: `/devices/${otherDevice}` }, 'unauthenticated');
  expectThat('the live sessions are the two devices\'', sessions.map((session) => session.id).sort().join() === [sidOf(second), sidOf(third)].sort().join(), sessions);
  expectThat('newest first', sessions.every((session, index) => index === 0 || String(session.createdAt) <= String(sessions[index - 1]!.createdAt)), sessions);
  expectThat('only the caller\'s session is current', sessions.filter((session) => session.current).map((session) => session.id).join() === sidOf(third), sessions);
  expectThat('the Chrome login shows as Chrome', sessions.find((session) => session.id === sidOf(third))?.client === 'Chrome', sessions);
  expectThat('networks are /24 or /48 prefixes', sessions.every((session) => /^[\d.]+\/24$|^[\da-f:]+::\/48$/.test(String(session.network))), sessions);
  await step('sessions, no token', 401, { method: 'GET', path: '/sessions' }, 'unauthenticated');
  await step('sessions, wrong method', 405, { method: 'POST', path: '/sessions', headers: bearer(third) }, 'method_not_allowed');
  await step('session, end another device\'s', 204, { method: 'DELETE', path: `/sessions/${sidOf(second)}`, headers: bearer(third) });
  await step('session, end it again', 404, { method: 'DELETE', path: `/sessions/${sidOf(second)}`, headers: bearer(third) }, 'session_not_found');
  await step('session, not a session id', 404, { method: 'DELETE', path: '/sessions/nope', headers: bearer(third) }, 'session_not_found');
  await step('session, no token', 401, { method: 'DELETE', path: `/sessions/${sidOf(third)}` }, 'unauthenticated');
  await step('session, wrong method', 405, { method: 'GET', path: `/sessions/${sidOf(third)}`, headers: bearer(third) }, 'method_not_allowed');
  await step('sessions, an ended session\'s access token', 401, { method: 'GET', path: '/sessions', headers: bearer(second) }, 'unauthenticated');
  await step('token, an ended session\'s refresh token', 400, refresh(second?.refreshToken), 'invalid_grant');
  await step('logout', 204, { method: 'POST', path: '/logout', headers: bearer(third) });
  await step('sessions, a logged-out access token', 401, { method: 'GET', path: '/sessions', headers: bearer(third) }, 'unauthenticated');
  await step('logout again', 401, { method: 'POST', path: '/logout', headers: bearer(third) }, 'unauthenticated');
  await step('logout, no token', 401, { method: 'POST', path: '/logout' }, 'unauthenticated');
  await step('logout, wrong method', 405, { method: 'GET', path: '/logout', headers: bearer(third) }, 'method_not_allowed');

  // Logging out the others; then a password change ends every session but its own.
  const fourth = await step('login, a fourth device', 200, post('/login', credentials(PASSWORD)));
  const fifth = await step('login, a fifth device', 200, post('/login', credentials(PASSWORD)));
  await step('logout, unknown scope', 400, { method: 'POST', path: '/logout?scope=everywhere', headers: bearer(fifth) }, 'invalid_request');
  await step('logout, the other sessions', 204, { method: 'POST', path: '/logout?scope=others', headers: bearer(fifth) });
  await step('sessions, a session logged out by another', 401, { method: 'GET', path: '/sessions', headers: bearer(fourth) }, 'unauthenticated');
  const sixth = await step('login, a sixth device', 200, post('/login', credentials(PASSWORD)));
  await step('password, no token', 401, post('/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }), 'unauthenticated');
  await step('password, wrong current', 401, post('/password', { currentPassword: 'wrong password here', newPassword: NEW_PASSWORD }, bearer(fifth)), 'invalid_credentials');
  await rejected('password, a common new password', post('/password', { currentPassword: PASSWORD, newPassword: 'qwertyuiop' }, bearer(fifth)), 'common');
  await step('password', 204, post('/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, bearer(fifth)));
  await step('sessions, a session the password change ended', 401, { method: 'GET', path: '/sessions', headers: bearer(sixth) }, 'unauthenticated');
  await step('token, a session the password change ended', 400, refresh(sixth?.refreshToken), 'invalid_grant');
  const kept = await step('token, the session that changed the password', 200, refresh(fifth?.refreshToken));
  const remaining = sessionsOf(await step('sessions, after the password change', 200, { method: 'GET', path: '/sessions', headers: bearer(kept) }));
  expectThat('only the session that changed the password is left', remaining.length === 1 && remaining[0]?.id === sidOf(fifth) && remaining[0]?.current === true, remaining);
  const seventh = await step('login, new password', 200, post('/login', credentials(NEW_PASSWORD)));

  // Email verification: the link the resend mails, used once; the session's next token says so.
  expectThat('an access token before verifying says email_verified: false', emailVerifiedOf(seventh) === false, emailVerifiedOf(seventh));
  await step('email verify, garbage', 400, post('/email/verify', { token: 'garbage' }), 'invalid_token');
  await step('email verify, no token', 400, post('/email/verify', {}), 'invalid_token');
  await step('email verify, bad JSON', 400, post('/email/verify', '{'), 'invalid_json');
  await step('email verify, wrong method', 405, { method: 'GET', path: '/email/verify' }, 'method_not_allowed');
  await step('email verify resend, no token', 401, { method: 'POST', path: '/email/verify/resend' }, 'unauthenticated');
  await step('email verify resend, wrong method', 405, { method: 'GET', path: '/email/verify/resend', headers: bearer(seventh) }, 'method_not_allowed');
  await step('email verify resend', 202, { method: 'POST', path: '/email/verify/resend', headers: bearer(seventh) });
  const verifyToken = mailedToken(ses, email, '/verify-email', (what, detail) => expectThat(what, false, detail));
  await step('email verify', 204, post('/email/verify', { token: verifyToken }));
  await step('email verify, the token again', 400, post('/email/verify', { token: verifyToken }), 'invalid_token');
  const verified = await step('token, refresh after verifying', 200, refresh(seventh?.refreshToken));
  expectThat('the next token of a session says email_verified: true', emailVerifiedOf(verified) === true, emailVerifiedOf(verified));
  await step('logout, everywhere', 204, { method: 'POST', path: '/logout?scope=global', headers: bearer(seventh) });
  await step('sessions, another session after logging out everywhere', 401, { method: 'GET', path: '/sessions', headers: bearer(kept) }, 'unauthenticated');
  await step('sessions, the own session after logging out everywhere', 401, { method: 'GET', path: '/sessions', headers: bearer(seventh) }, 'unauthenticated');

  // Password reset: the same answer for the account and for nobody; the link the account's
  // mailbox gets sets a new password once, and every session ends.
  const beforeReset = await step('login, before the reset', 200, post('/login', credentials(NEW_PASSWORD)));
  const unknown = `nobody-${randomUUID()}@example.test`;
  await step('password reset', 202, post('/password/reset', { email: email.toUpperCase() }));
  const knownAnswer = transcript.at(-1)!.answer.body;
  await step('password reset, unknown email', 202, post('/password/reset', { email: unknown }));
  const unknownAnswer = transcript.at(-1)!.answer.body;
  expectThat('the answers for the account and for an unknown email are identical', knownAnswer === unknownAnswer, [knownAnswer, unknownAnswer]);
  expectThat('nothing is mailed to an unknown email', mailsTo(ses, unknown).length === 0, mailsTo(ses, unknown).length);
  await step('password reset, bad email', 400, post('/password/reset', { email: 'nope' }), 'invalid_request');
  await step('password reset, bad JSON', 400, post('/password/reset', '{'), 'invalid_json');
  await step('password reset, not JSON', 415, { method: 'POST', path: '/password/reset', headers: { 'content-type': 'text/plain' }, body: '{}' }, 'unsupported_media_type');
  await step('password reset, wrong method', 405, { method: 'GET', path: '/password/reset' }, 'method_not_allowed');
  const resetToken = mailedToken(ses, email, '/reset-password', (what, detail) => expectThat(what, false, detail));
  await step('password reset confirm, garbage token', 400, post('/password/reset/confirm', { token: 'garbage', newPassword: RESET_PASSWORD }), 'invalid_token');
  await step('password reset confirm, no new password', 400, post('/password/reset/confirm', { token: resetToken }), 'invalid_request');
  await step('password reset confirm, wrong method', 405, { method: 'GET', path: '/password/reset/confirm' }, 'method_not_allowed');
  await step('password reset confirm', 204, post('/password/reset/confirm', { token: resetToken, newPassword: RESET_PASSWORD }));
  await step('password reset confirm, the token again', 400, post('/password/reset/confirm', { token: resetToken, newPassword: RESET_PASSWORD }), 'invalid_token');
  await step('sessions, a session the reset ended', 401, { method: 'GET', path: '/sessions', headers: bearer(beforeReset) }, 'unauthenticated');
  await step('token, a session the reset ended', 400, refresh(beforeReset?.refreshToken), 'invalid_grant');
  await step('login, the password before the reset', 401, post('/login', credentials(NEW_PASSWORD)), 'invalid_credentials');
  const afterReset = await step('login, the reset password', 200, post('/login', credentials(RESET_PASSWORD)));
  expectThat('the reset counts the email as verified', emailVerifiedOf(afterReset) === true, emailVerifiedOf(afterReset));

  // The good logins cleared the earlier failure from this source; two more reach the limit.
  await step('login, wrong again', 401, post('/login', credentials('wrong password here')), 'invalid_credentials');
  await step('login, wrong at the limit', 401, post('/login', credentials('wrong password here')), 'invalid_credentials');
  await step('login, over the failure limit', 429, post('/login', credentials(RESET_PASSWORD)), 'rate_limited');
  // A known device is counted on its own: the limit this source ran up does not hold it back
  // (and its good login ends the source's failures on the account, as any good login does).
  await step('login, over the failure limit with a forgotten device', 429, post('/login', { ...credentials(RESET_PASSWORD), deviceToken: first?.deviceToken }), 'rate_limited');
  await step('login, over the failure limit with the known device\'s token', 200, post('/login', { ...credentials(RESET_PASSWORD), deviceToken: afterReset?.deviceToken }));
  for (const attempt of ['once more', 'at the limit again']) {
    await step(`login, wrong ${attempt}`, 401, post('/login', credentials('wrong password here')), 'invalid_credentials');
  }
  const afterResetCookie = cookieOf(transcript.find((entry) => entry.label === 'login, the reset password')?.answer.headers['set-cookie']);
  await step('login, over the failure limit with the known device\'s cookie', 200, post('/login', credentials(RESET_PASSWORD), { cookie: `theme=dark; ${afterResetCookie}` }));

  // Device approval: a new client held by the limit asks, and nobody's email is answered alike;
  // the mailed link works beside the asking client's secret only (a browser's cookie, or the
  // field), once, and makes that client a known device.
  for (const attempt of ['before an approval', 'at the limit before an approval']) {
    await step(`login, wrong ${attempt}`, 401, post('/login', credentials('wrong password here')), 'invalid_credentials');
  }
  await step('login, a new client over the failure limit', 429, post('/login', credentials(RESET_PASSWORD)), 'rate_limited');
  const asked = await step('device approval', 202, post('/devices/approval', { email }));
  const askedCookie = cookieOf(transcript.at(-1)!.answer.headers['set-cookie']);
  const nobody = await step('device approval, unknown email', 202, post('/devices/approval', { email: unknown }));
  expectThat('the approval answers for the account and for an unknown email have the same fields', Object.keys(asked ?? {}).join() === Object.keys(nobody ?? {}).join(), [asked, nobody]);
  expectThat('no approval is mailed to an unknown email', mailsTo(ses, unknown).length === 0, mailsTo(ses, unknown).length);
  await step('device approval, bad email', 400, post('/devices/approval', { email: 'nope' }), 'invalid_request');
  await step('device approval, wrong method', 405, { method: 'GET', path: '/devices/approval' }, 'method_not_allowed');
  const approvalToken = mailedToken(ses, email, '/approve-device', (what, detail) => expectThat(what, false, detail));
  await step('device approval confirm, another client', 400, post('/devices/approval/confirm', { token: approvalToken, clientSecret: nobody?.clientSecret }), 'invalid_token');
  await step('device approval confirm, wrong method', 405, { method: 'GET', path: '/devices/approval/confirm' }, 'method_not_allowed');
  const approved = await step('device approval confirm, with the asking client\'s cookie', 200, post('/devices/approval/confirm', { token: approvalToken }, { cookie: askedCookie }));
  await step('device approval confirm, the link again', 400, post('/devices/approval/confirm', { token: approvalToken, clientSecret: asked?.clientSecret }), 'invalid_token');
  await step('login, over the failure limit with the approved device', 200, post('/login', { ...credentials(RESET_PASSWORD), deviceToken: approved?.deviceToken }));
  await step('jwks', 200, { method: 'GET', path: '/.well-known/jwks.json' });
  await step('jwks, wrong method', 405, { method: 'DELETE', path: '/.well-known/jwks.json' }, 'method_not_allowed');
  await step('openid configuration', 200, { method: 'GET', path: '/.well-known/openid-configuration' });
  await step('oauth authorization server metadata', 200, { method: 'GET', path: '/.well-known/oauth-authorization-server' });

  // serverless-offline's web server answers CORS itself (infra/README.md, "Running offline"): the
  // functions' CORS answers are checked on every other host.
  if (host.corsOfItsOwn === undefined) {
    // CORS. A listed origin's page: a preflight answered (not 405), then answers it may read, with
    // credentials, errors too. Another origin: no grant anywhere. The public keys and discovery:
    // any origin, never with credentials, and embeddable (Cross-Origin-Resource-Policy).
    const headers = () => transcript.at(-1)!.answer.headers;
    const listsAll = (value: string | undefined, wanted: string[]) => wanted.every((item) => (value ?? '').toLowerCase().split(/,\s*/).includes(item));
    const granted = (label: string, origin: string, credentials: boolean) => {
      const { 'access-control-allow-origin': allowOrigin, 'access-control-allow-credentials': allowCredentials } = headers();
      expectThat(`${label}: Access-Control-Allow-Origin ${origin}`, allowOrigin === origin, allowOrigin);
      expectThat(`${label}: credentials ${credentials ? 'allowed' : 'not allowed'}`, (allowCredentials === 'true') === credentials, allowCredentials);
    };
    const notGranted = (label: string) => {
      const grants = Object.keys(headers()).filter((name) => name.startsWith('access-control-'));
      expectThat(`${label}: no Access-Control-* header`, grants.length === 0, grants);
      expectThat(`${label}: Vary: Origin`, listsAll(headers().vary, ['origin']), headers().vary);
    };
    await step('preflight, the listed origin', 204, preflight('/login', LISTED_ORIGIN, 'POST'));
    granted('preflight, the listed origin', LISTED_ORIGIN, true);
    expectThat('preflight: the path\'s method', listsAll(headers()['access-control-allow-methods'], ['post']), headers()['access-control-allow-methods']);
    expectThat('preflight: a JSON body and a Bearer token', listsAll(headers()['access-control-allow-headers'], ['content-type', 'authorization']), headers()['access-control-allow-headers']);
    expectThat('preflight: kept 10 minutes', headers()['access-control-max-age'] === '600', headers()['access-control-max-age']);
    expectThat('preflight: Vary: Origin', listsAll(headers().vary, ['origin']), headers().vary);
    await step('preflight, the listed origin, a session route', 204, preflight(`/sessions/${sidOf(afterReset)}`, LISTED_ORIGIN, 'DELETE', 'authorization'));
    granted('preflight, a session route', LISTED_ORIGIN, true);
    expectThat('preflight, a session route: DELETE', listsAll(headers()['access-control-allow-methods'], ['delete']), headers()['access-control-allow-methods']);
    await step('preflight, another origin', 204, preflight('/login', OTHER_ORIGIN, 'POST'));
    notGranted('preflight, another origin');
    await step('options without a preflight\'s headers', 405, { method: 'OPTIONS', path: '/login' }, 'method_not_allowed');
    await step('register, from the listed origin', 201, post('/register', { email: `cors-${randomUUID()}@example.test`, password: PASSWORD }, { origin: LISTED_ORIGIN }));
    granted('register, from the listed origin', LISTED_ORIGIN, true);
    expectThat('an answer to the listed origin exposes Retry-After and WWW-Authenticate', listsAll(headers()['access-control-expose-headers'], ['retry-after', 'www-authenticate']), headers()['access-control-expose-headers']);
    expectThat('an answer to the listed origin stays same-origin for no-cors reads', headers()['cross-origin-resource-policy'] === 'same-origin', headers()['cross-origin-resource-policy']);
    await step('register again, from the listed origin', 409, post('/register', credentials(RESET_PASSWORD), { origin: LISTED_ORIGIN }), 'account_exists');
    granted('an error, to the listed origin', LISTED_ORIGIN, true);
    await step('register, bad email, from another origin', 400, post('/register', { email: 'nope', password: PASSWORD }, { origin: OTHER_ORIGIN }), 'invalid_request');
    notGranted('an answer to another origin');
    for (const [label, path] of [
      ['jwks', '/.well-known/jwks.json'],
      ['openid configuration', '/.well-known/openid-configuration'],
      ['oauth authorization server metadata', '/.well-known/oauth-authorization-server'],
    ] as const) {
      await step(`${label}, from another origin`, 200, { method: 'GET', path, headers: { origin: OTHER_ORIGIN } });
      granted(`${label}, from another origin`, '*', false);
      expectThat(`${label}: Cross-Origin-Resource-Policy: cross-origin`, headers()['cross-origin-resource-policy'] === 'cross-origin', headers()['cross-origin-resource-policy']);
      await step(`${label}, a preflight from another origin`, 204, preflight(path, OTHER_ORIGIN, 'GET'));
      granted(`${label}, a preflight from another origin`, '*', false);
    }
  }
  await mfaSteps(step, expectThat);
  await passkeySteps(step, expectThat, ses);
  await federationSteps(step, expectThat, () => transcript.at(-1)!.answer, provider);
  await step('unknown path', 404, { method: 'GET', path: '/nope' }, 'not_found');
  return { transcript, wrong };
}

/** Sends one request of the walk and checks its status (and error code): what the walks below are handed. */
type SendStep = (label: string, status: number, request: HostRequest, code?: string) => Promise<Body>;
type ExpectThat = (label: string, holds: boolean, detail: unknown) => void;

/** The API's public URL on every host (PASSLANE_PUBLIC_URL): providers call back to `<it>/oauth/<name>/callback`. */
const PUBLIC_URL = 'https://auth.passlane.test';

/**
 * Sign-in with a provider (panva's oidc-provider on loopback, fetched by every host, the Worker
 * included): the start (302 to the provider, the browser's cookie), the provider's pages as a
 * browser goes through them, the callback (GET, and the form post of `form_post`) back to the app
 * with its code, the code redeemed with the app's verifier; a replayed code and state refused;
 * the identities listed; an account's email met (409 with a link token), linked after its
 * password login, the identity removed.
 */
async function federationSteps(step: SendStep, expectThat: ExpectThat, last: () => HttpAnswer, provider: TestOidcProvider): Promise<void> {
  const signIn = async (label: string, name: string, account: { sub: string; email: string }) => {
    provider.signInAs({ ...account, emailVerified: true });
    const verifier = oauth.generateRandomCodeVerifier();
    const query = new URLSearchParams({ redirect_to: `${APP_URL}/signed-in`, code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    await step(`${label}: start`, 302, { method: 'GET', path: `/oauth/${name}/start?${query}` });
    const started = last();
    const cookie = cookieOf(started.headers['set-cookie']);
    expectThat(`${label}: the start sets a __Host- cookie`, cookie.startsWith('__Host-passlane-oauth-'), started.headers['set-cookie']);
    const location = started.headers.location ?? '';
    expectThat(`${label}: the start sends the browser to the provider with PKCE S256`, location.startsWith(provider.issuer) && new URL(location).searchParams.get('code_challenge_method') === 'S256', location);
    const back = await throughProvider(location || provider.issuer, PUBLIC_URL).catch((error: unknown) => {
      expectThat(`${label}: the provider sends the browser back`, false, String(error));
      return undefined;
    });
    const path = back === undefined ? `/oauth/${name}/callback` : `${back.url.pathname}${back.url.search}`;
    const callback: HostRequest =
      back?.method === 'POST'
        ? { method: 'POST', path, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: back.form!.toString() }
        : { method: 'GET', path, headers: { cookie } };
    await step(`${label}: callback${back?.method === 'POST' ? ' (form post)' : ''}`, 302, callback);
    const to = new URL(last().headers.location ?? 'https://no.location.test');
    expectThat(`${label}: the callback returns to the app with a code and no token`, to.origin === APP_URL && to.searchParams.has('code') && !to.search.includes('token'), to.href);
    return { code: to.searchParams.get('code') ?? 'none', verifier, callback };
  };

  const newcomer = { sub: randomUUID(), email: `federated-${randomUUID()}@example.test` };
  const first = await signIn('federation: a new user', 'idp', newcomer);
  await step('federation: the code without its verifier', 400, post('/oauth/token', { code: first.code, codeVerifier: oauth.generateRandomCodeVerifier() }), 'invalid_oauth_code');
  const fresh = await signIn('federation: a new user, again', 'idp', newcomer);
  const session = await step('federation: the code redeemed', 200, post('/oauth/token', { code: fresh.code, codeVerifier: fresh.verifier }));
  expectThat('a federated login says amr fed', JSON.stringify(amrOf(session)) === '["fed"]', amrOf(session));
  expectThat('a federated login\'s token carries the token hook\'s claims', tenantOf(session) === 'contract', tenantOf(session));
  await step('federation: the code again', 400, post('/oauth/token', { code: fresh.code, codeVerifier: fresh.verifier }), 'invalid_oauth_code');
  await step('federation: the callback again (its state spent)', 400, fresh.callback, 'invalid_oauth_state');
  const listed = await step('federation: identities', 200, { method: 'GET', path: '/identities', headers: bearer(session) });
  expectThat('the identity is listed', JSON.stringify((listed?.identities as Array<{ provider: string }> | undefined)?.map((identity) => identity.provider)) === '["idp"]', listed);
  await step('federation: a redirect_to off the allow-list', 400, { method: 'GET', path: `/oauth/idp/start?redirect_to=${encodeURIComponent('https://evil.example/x')}&code_challenge=${'a'.repeat(43)}` }, 'redirect_not_allowed');

  // The form post (`response_mode=form_post`, as Apple answers), for an account with a password: link required, then linked after its login.
  const email = `linked-${randomUUID()}@example.test`;
  await step('federation: register the account to link', 201, post('/register', { email, password: PASSWORD }));
  const posted = await signIn('federation: form post, an account\'s email', 'idp-post', { sub: randomUUID(), email });
  const refused = await step('federation: the email has an account', 409, post('/oauth/token', { code: posted.code, codeVerifier: posted.verifier }), 'identity_link_required');
  const login = await step('federation: the account\'s own login', 200, post('/login', { email, password: PASSWORD }));
  const linked = await step('federation: link', 201, { method: 'POST', path: '/identities/link', headers: { ...json({}).headers, ...bearer(login) }, body: JSON.stringify({ linkToken: refused?.linkToken }) });
  await step('federation: remove the identity', 204, { method: 'DELETE', path: `/identities/${String(linked?.id)}`, headers: bearer(login) });
}

/** The access token's `amr` (RFC 8176): how the login was made. */
const amrOf = (body: Body) => (body === undefined ? [] : (decodeJwt(String(body.accessToken)).amr as unknown));
/** The claim the contract's token hook adds to every token it is asked about (answerHook). */
const tenantOf = (body: Body) => (body === undefined ? undefined : decodeJwt(String(body.accessToken ?? body.access_token)).tenant);

/**
 * Two-factor login on its own account: enrolment from the otpauth URI the host answered (codes
 * computed from this host's secret, so every host's answers compare), a login finished with a
 * wrong code, a recovery code and a TOTP code, a replay, new recovery codes, the removal.
 */
async function mfaSteps(
  step: SendStep,
  expectThat: ExpectThat,
): Promise<void> {
  const email = `mfa-${randomUUID()}@example.test`;
  const plain = `plain-${randomUUID()}@example.test`;
  await step('mfa: register', 201, post('/register', { email, password: PASSWORD }));
  await step('mfa: register a plain account', 201, post('/register', { email: plain, password: PASSWORD }));
  const session = await step('mfa: login', 200, post('/login', { email, password: PASSWORD }));
  const bystander = await step('mfa: another password login', 200, post('/login', { email, password: PASSWORD }));
  await step('mfa: enrol, no token', 401, { method: 'POST', path: '/mfa/totp' }, 'unauthenticated');
  const enrolled = await step('mfa: enrol', 200, { method: 'POST', path: '/mfa/totp', headers: bearer(session) });
  const uri = new URL(String(enrolled?.otpauthUri ?? 'otpauth://totp/none'));
  expectThat('the otpauth URI is SHA-1, 6 digits, 30 s, with the secret answered', uri.searchParams.get('algorithm') === 'SHA1' && uri.searchParams.get('digits') === '6' && uri.searchParams.get('period') === '30' && uri.searchParams.get('secret') === enrolled?.secret, uri.search);
  const secret = base32Bytes(String(enrolled?.secret ?? ''));
  const codeAt = (steps: number) => totpCode(secret, Date.now(), steps);
  await step('mfa: confirm, a wrong code', 401, post('/mfa/totp/confirm', { code: 'abcdef' }, bearer(session)), 'invalid_mfa_code');
  const confirmed = await step('mfa: confirm', 200, post('/mfa/totp/confirm', { code: codeAt(0) }, bearer(session)));
  const recoveryCodes = (confirmed?.recoveryCodes ?? []) as string[];
  expectThat('10 recovery codes, shown once', recoveryCodes.length === 10, recoveryCodes.length);
  // Turning a factor on ends the other password-only sessions; the enabling one goes on, password-only.
  expectThat('the confirm says one other password-only session ended', confirmed?.sessionsEnded === 1, confirmed?.sessionsEnded);
  await step('mfa: the other password-only session, ended', 401, { method: 'GET', path: '/sessions', headers: bearer(bystander) }, 'unauthenticated');
  await step('mfa: the enabling session goes on', 200, { method: 'GET', path: '/sessions', headers: bearer(session) });
  // Only a factor changes factors: the password-only session can enrol, regenerate or remove nothing now.
  await step('mfa: enrol again, a password-only session', 403, { method: 'POST', path: '/mfa/totp', headers: bearer(session) }, 'reauthentication_required');
  await step('mfa: confirm again, a password-only session', 403, post('/mfa/totp/confirm', { code: codeAt(0) }, bearer(session)), 'reauthentication_required');
  await step('mfa: new recovery codes, a password-only session', 403, { method: 'POST', path: '/mfa/recovery-codes', headers: bearer(session) }, 'reauthentication_required');
  await step('mfa: remove, a password-only session', 403, { method: 'DELETE', path: '/mfa/totp', ...json({ method: 'recovery_code', code: recoveryCodes[9] ?? '' }), headers: { ...json({}).headers, ...bearer(session) } }, 'reauthentication_required');

  const wrongOnMfa = await step('mfa: login, wrong password', 401, post('/login', { email, password: 'wrong password here' }), 'invalid_credentials');
  const wrongOnPlain = await step('mfa: a plain account, wrong password', 401, post('/login', { email: plain, password: 'wrong password here' }), 'invalid_credentials');
  expectThat('a wrong password answers the same on an account with MFA', JSON.stringify(wrongOnMfa) === JSON.stringify(wrongOnPlain), [wrongOnMfa, wrongOnPlain]);
  const challenge = await step('mfa: login, the password step', 401, post('/login', { email, password: PASSWORD }), 'mfa_required');
  expectThat('mfa_required names the token and the methods', typeof challenge?.mfaToken === 'string' && JSON.stringify(challenge.methods) === '["totp","recovery_code"]', challenge?.methods);
  const finish = (mfaToken: unknown, method: string, code: string) => post('/login/mfa', { mfaToken, method, code });
  // Wrong codes count as failed logins of the account from this source (FAILURE_LIMIT before a
  // wait), so each wrong one below is followed by a right one, which clears them.
  await step('mfa: login, an unknown method', 400, finish(challenge?.mfaToken, 'sms', '000000'), 'invalid_request');
  const byRecovery = await step('mfa: login with a recovery code', 200, finish(challenge?.mfaToken, 'recovery_code', recoveryCodes[0] ?? ''));
  expectThat('a login with a second factor says amr pwd, otp, mfa', JSON.stringify(amrOf(byRecovery)) === '["pwd","otp","mfa"]', amrOf(byRecovery));
  expectThat('a login with a second factor carries the token hook\'s claims', tenantOf(byRecovery) === 'contract', tenantOf(byRecovery));
  await step('mfa: enrol while active', 409, { method: 'POST', path: '/mfa/totp', headers: bearer(byRecovery) }, 'mfa_already_enabled');
  await step('mfa: the MFA token again', 401, finish(challenge?.mfaToken, 'recovery_code', recoveryCodes[1] ?? ''), 'invalid_mfa_token');
  const again = await step('mfa: login, the password step again', 401, post('/login', { email, password: PASSWORD }), 'mfa_required');
  await step('mfa: the used recovery code', 401, finish(again?.mfaToken, 'recovery_code', recoveryCodes[0] ?? ''), 'invalid_mfa_code');
  // The next step's code: the confirm spent the current one.
  const code = codeAt(1);
  await step('mfa: login with a TOTP code', 200, finish(again?.mfaToken, 'totp', code));
  const third = await step('mfa: login, the password step a third time', 401, post('/login', { email, password: PASSWORD }), 'mfa_required');
  await step('mfa: the same TOTP code again', 401, finish(third?.mfaToken, 'totp', code), 'invalid_mfa_code');
  const renewed = await step('mfa: new recovery codes', 200, { method: 'POST', path: '/mfa/recovery-codes', headers: bearer(byRecovery) });
  const renewedCodes = (renewed?.recoveryCodes ?? []) as string[];
  await step('mfa: login with a new recovery code', 200, finish(third?.mfaToken, 'recovery_code', renewedCodes[1] ?? ''));
  await step('mfa: remove, a wrong code', 401, { method: 'DELETE', path: '/mfa/totp', ...json({ method: 'recovery_code', code: 'aaaa-aaaa-aaaa-aaaa' }), headers: { ...json({}).headers, ...bearer(byRecovery) } }, 'invalid_mfa_code');
  await step('mfa: remove', 204, { method: 'DELETE', path: '/mfa/totp', ...json({ method: 'recovery_code', code: renewedCodes[0] ?? '' }), headers: { ...json({}).headers, ...bearer(byRecovery) } });
  await step('mfa: new recovery codes without TOTP', 409, { method: 'POST', path: '/mfa/recovery-codes', headers: bearer(byRecovery) }, 'mfa_not_enabled');
  const after = await step('mfa: login after the removal', 200, post('/login', { email, password: PASSWORD }));
  expectThat('a password login says amr pwd', JSON.stringify(amrOf(after)) === '["pwd"]', amrOf(after));
}

/**
 * Passkeys on their own account, with a software authenticator answering as a browser on the
 * app's origin: registration after a recent login, the list, a rename, a passwordless login and
 * its replay, the password step listing webauthn with its options, a passkey as the second
 * factor, a wrong password answered as on a plain account, the removal (refused without a
 * second factor, then done), and the removed passkey refused. Only a factor changes factors: the
 * registering password-only session may add, rename or remove nothing once the passkey is there,
 * and the registration ended the other password-only session. Then a passkey added again by a
 * password-only login, undone from its mail's link: gone, every session ended, the password
 * refused until the mailed reset.
 */
async function passkeySteps(
  step: SendStep,
  expectThat: ExpectThat,
  ses: SesCapture,
): Promise<void> {
  const email = `passkey-${randomUUID()}@example.test`;
  const plain = `plain-${randomUUID()}@example.test`;
  const authenticator = softwareAuthenticator({ origin: WEBAUTHN_ORIGIN });
  const withBearer = (request: HostRequest, session: Body): HostRequest => ({ ...request, headers: { ...request.headers, ...bearer(session) } });
  await step('passkeys: register', 201, post('/register', { email, password: PASSWORD }));
  await step('passkeys: register a plain account', 201, post('/register', { email: plain, password: PASSWORD }));
  const session = await step('passkeys: login', 200, post('/login', { email, password: PASSWORD }));
  const bystander = await step('passkeys: another password login', 200, post('/login', { email, password: PASSWORD }));
  await step('passkeys: registration options, no token', 401, { method: 'POST', path: '/passkeys/registration/options' }, 'unauthenticated');
  const creation = await step('passkeys: registration options', 200, { method: 'POST', path: '/passkeys/registration/options', headers: bearer(session) });
  const rp = creation?.rp as { id?: string } | undefined;
  expectThat('the creation options name the relying party and ask for a discoverable credential', rp?.id === WEBAUTHN_RP_ID && (creation?.authenticatorSelection as { residentKey?: string })?.residentKey === 'required', creation);
  const registration = creation === undefined ? {} : await authenticator.register(creation as never);
  const registered = await step('passkeys: registration', 201, withBearer(post('/passkeys/registration', { response: registration, name: 'Laptop' }), session));
  const id = String((registered?.passkey as { id?: string } | undefined)?.id);
  expectThat('the first factor comes with 10 recovery codes', (registered?.recoveryCodes as unknown[] | undefined)?.length === 10, registered?.recoveryCodes);
  expectThat('the registration says one other password-only session ended', registered?.sessionsEnded === 1, registered?.sessionsEnded);
  await step('passkeys: the other password-only session, ended', 401, { method: 'GET', path: '/passkeys', headers: bearer(bystander) }, 'unauthenticated');
  const listed = await step('passkeys: list', 200, { method: 'GET', path: '/passkeys', headers: bearer(session) });
  expectThat('the list has the passkey, named', JSON.stringify((listed?.passkeys as Array<{ id: string; name: string }> | undefined)?.map((p) => [p.id, p.name])) === JSON.stringify([[id, 'Laptop']]), listed);
  await step('passkeys: add another, a password-only session', 403, { method: 'POST', path: '/passkeys/registration/options', headers: bearer(session) }, 'reauthentication_required');
  await step('passkeys: rename, a password-only session', 403, withBearer({ method: 'PATCH', path: `/passkeys/${id}`, ...json({ name: 'Mine now' }) }, session), 'reauthentication_required');

  const loginOptions = async (label: string) => (await step(label, 200, { method: 'POST', path: '/passkey/login/options' })) ?? { challenge: 'none', rpId: WEBAUTHN_RP_ID };
  const assertion = await authenticator.authenticate((await loginOptions('passkeys: login options')) as never);
  const passwordless = await step('passkeys: passwordless login', 200, post('/passkey/login', { response: assertion }));
  expectThat('a passwordless login says amr hwk, user, mfa', JSON.stringify(amrOf(passwordless)) === '["hwk","user","mfa"]', amrOf(passwordless));
  expectThat('a passwordless login carries the token hook\'s claims', tenantOf(passwordless) === 'contract', tenantOf(passwordless));
  await step('passkeys: the same assertion again', 401, post('/passkey/login', { response: assertion }), 'invalid_passkey');
  await step('passkeys: rename', 200, withBearer({ method: 'PATCH', path: `/passkeys/${id}`, ...json({ name: 'Work laptop' }) }, passwordless));
  await step('passkeys: rename an unknown one', 404, withBearer({ method: 'PATCH', path: '/passkeys/AAAA', ...json({ name: 'x' }) }, passwordless), 'passkey_not_found');

  const challenge = await step('passkeys: login, the password step', 401, post('/login', { email, password: PASSWORD }), 'mfa_required');
  const options = challenge?.webauthn as { challenge?: string; allowCredentials?: Array<{ id: string }> } | undefined;
  expectThat('mfa_required lists webauthn with options allowing the passkey', (challenge?.methods as string[] | undefined)?.includes('webauthn') === true && options?.allowCredentials?.[0]?.id === id, challenge);
  const secondFactor = options === undefined ? {} : await authenticator.authenticate(options as never);
  const finished = await step('passkeys: login with the passkey as second factor', 200, post('/login/mfa', { mfaToken: challenge?.mfaToken, method: 'webauthn', response: secondFactor }));
  expectThat('a passkey as second factor says amr pwd, hwk, mfa', JSON.stringify(amrOf(finished)) === '["pwd","hwk","mfa"]', amrOf(finished));
  const wrongOnPasskey = await step('passkeys: login, wrong password', 401, post('/login', { email, password: 'wrong password here' }), 'invalid_credentials');
  const wrongOnPlain = await step('passkeys: a plain account, wrong password', 401, post('/login', { email: plain, password: 'wrong password here' }), 'invalid_credentials');
  expectThat('a wrong password answers the same on an account with a passkey', JSON.stringify(wrongOnPasskey) === JSON.stringify(wrongOnPlain), [wrongOnPasskey, wrongOnPlain]);

  await step('passkeys: remove after a password-only login', 403, { method: 'DELETE', path: `/passkeys/${id}`, headers: bearer(session) }, 'reauthentication_required');
  await step('passkeys: remove after a login with a second factor', 204, { method: 'DELETE', path: `/passkeys/${id}`, headers: bearer(finished) });
  const removed = await authenticator.authenticate((await loginOptions('passkeys: login options again')) as never);
  await step('passkeys: the removed passkey', 401, post('/passkey/login', { response: removed }), 'invalid_passkey');
  const after = await step('passkeys: login after the removal', 200, post('/login', { email, password: PASSWORD }));
  expectThat('a password login says amr pwd', JSON.stringify(amrOf(after)) === '["pwd"]', amrOf(after));

  // A first factor again, by a password-only login (trust on first use), and its mail's undo link.
  const stranger = softwareAuthenticator({ origin: WEBAUTHN_ORIGIN });
  const strangers = await step('passkeys: registration options, a first factor again', 200, { method: 'POST', path: '/passkeys/registration/options', headers: bearer(after) });
  const added = await step('passkeys: a first factor again', 201, withBearer(post('/passkeys/registration', { response: strangers === undefined ? {} : await stranger.register(strangers as never) }), after));
  const complain = (what: string, detail: unknown) => expectThat(what, false, detail);
  const undo = mailedToken(ses, email, '/undo-factor', complain);
  await step('passkeys: undo, a wrong token', 400, post('/mfa/undo', { token: `${undo.split('.')[0]}.${'A'.repeat(43)}` }), 'invalid_token');
  const undone = await step('passkeys: undo from the mail', 200, post('/mfa/undo', { token: undo }));
  expectThat('the undo removed the passkey its mail was about', undone?.factorRemoved === true, undone);
  await step('passkeys: undo again', 400, post('/mfa/undo', { token: undo }), 'invalid_token');
  const undoneAssertion = await stranger.authenticate((await loginOptions('passkeys: login options after the undo')) as never);
  await step('passkeys: the undone passkey', 401, post('/passkey/login', { response: undoneAssertion }), 'invalid_passkey');
  await step('passkeys: the session that added it, ended', 401, { method: 'GET', path: '/passkeys', headers: bearer(after) }, 'unauthenticated');
  expectThat('the session that added it saw its registration', typeof (added?.passkey as { id?: string } | undefined)?.id === 'string', added);
  await step('passkeys: the password after the undo', 401, post('/login', { email, password: PASSWORD }), 'invalid_credentials');
  const reset = mailedToken(ses, email, '/reset-password', complain);
  await step('passkeys: the reset the undo mailed', 204, post('/password/reset/confirm', { token: reset, newPassword: RESET_PASSWORD }));
  await step('passkeys: login after the reset', 200, post('/login', { email, password: RESET_PASSWORD }));
}

/** Routes walked by a script of their own (each in its own `it`), not by runScript. */
const WALKED_APART = new Set(['DELETE /account', 'POST /email/change', 'POST /email/change/confirm', 'POST /email/change/undo']);

/** The email change's paths, each of which its walk must reach with a success. */
const OWN_WALK_PATHS = new Set(['/email/change', '/email/change/confirm', '/email/change/undo']);

/**
 * DELETE /account on its own account: refused without a token, done with one (204), after which
 * the token is dead, the password signs nobody in, a mail confirmed it, and the address registers
 * again.
 */
async function runDeletionScript(host: RunningHost, ses: SesCapture): Promise<{ transcript: Transcript; wrong: string[] }> {
  const email = `contract-delete-${randomUUID()}@example.test`;
  const transcript: Transcript = [];
  const wrong: string[] = [];
  const step = async (label: string, status: number, request: HostRequest, code?: string): Promise<Body> => {
    const answer = await host.send(request);
    transcript.push({ label, request, status, ...(code !== undefined && { code }), answer });
    return answer.body === '' || answer.statusCode !== status ? undefined : (JSON.parse(answer.body) as Record<string, unknown>);
  };
  const remove = (headers: Record<string, string> = {}): HostRequest => ({ method: 'DELETE', path: '/account', headers });
  await step('delete: register', 201, post('/register', { email, password: PASSWORD }));
  const session = await step('delete: login', 200, post('/login', { email, password: PASSWORD }));
  await step('delete: no token', 401, remove(), 'unauthenticated');
  await step('delete: the account', 204, remove(bearer(session)));
  await step('delete: the token after it', 401, remove(bearer(session)), 'unauthenticated');
  await step('delete: its sessions after it', 401, { method: 'GET', path: '/sessions', headers: bearer(session) }, 'unauthenticated');
  await step('delete: its refresh token after it', 400, refresh(session?.refreshToken), 'invalid_grant');
  await step('delete: its password after it', 401, post('/login', { email, password: PASSWORD }), 'invalid_credentials');
  const tags = mailsTo(ses, email).map((request) => request.body.EmailTags?.[0]?.Value);
  if (tags.at(-1) !== 'account_changed') wrong.push(`a mail confirms the deletion: ${JSON.stringify(tags)}`);
  await step('delete: the address registers again', 201, post('/register', { email, password: PASSWORD }));
  return { transcript, wrong };
}

/** A hono path (`/sessions/:id`) as a RegExp matching request paths (query strings aside). */
function honoPathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/** Every field name in a body, nested ones as paths (`sessions[].client`): values differ per host, names must not. */
function fieldNames(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => fieldNames(item, `${prefix}[]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, inner]) => [`${prefix}${prefix ? '.' : ''}${name}`, ...fieldNames(inner, `${prefix}${prefix ? '.' : ''}${name}`)]);
}

/** What must be the same on every host. */
function comparable({ answer }: { answer: HttpAnswer }) {
  const body = answer.body === '' ? undefined : (JSON.parse(answer.body) as Record<string, unknown>);
  return {
    status: answer.statusCode,
    code: errorCodeOf(body),
    fields: [...new Set(fieldNames(body))].sort(),
    headers: Object.fromEntries(COMPARED_HEADERS.map((name) => [name, answer.headers[name]])),
    retryAfter: answer.headers['retry-after'] !== undefined,
  };
}

let dynamo: RunningDynamoDb;
let ses: SesCapture;
let range: RangeServer;
let provider: TestOidcProvider;
const transcripts = new Map<HostName, Transcript>();
const deletions = new Map<HostName, Transcript>();

/**
 * A change of email on its own account: the request behind a fresh login (refused without a token
 * or an address, 202 for a taken address as for a free one), the old address logging in until the
 * link is used, the link mailed to the new address (a wrong token, the link, the link again), the
 * new address logging in and the old not, the sessions from before ended, and the old address's
 * undo link putting it back with the password locked.
 */
async function emailChangeWalk(host: RunningHost, ses: SesCapture): Promise<{ transcript: Transcript; wrong: string[] }> {
  const transcript: Transcript = [];
  const wrong: string[] = [];
  const step = async (label: string, status: number, request: HostRequest, code?: string): Promise<Body> => {
    const answer = await host.send(request);
    transcript.push({ label, request, status, ...(code !== undefined && { code }), answer });
    return answer.body === '' || answer.statusCode !== status ? undefined : (JSON.parse(answer.body) as Record<string, unknown>);
  };
  const complain = (what: string, detail: unknown) => wrong.push(`${what}: ${JSON.stringify(detail)}`);
  const email = `change-${randomUUID()}@example.test`;
  const taken = `taken-${randomUUID()}@example.test`;
  const newEmail = `moved-${randomUUID()}@example.test`;
  await step('email change: register', 201, post('/register', { email, password: PASSWORD }));
  await step('email change: register the taken address', 201, post('/register', { email: taken, password: PASSWORD }));
  const session = await step('email change: login', 200, post('/login', { email, password: PASSWORD }));
  await step('email change: no token', 401, post('/email/change', { newEmail }), 'unauthenticated');
  await step('email change: not an address', 400, post('/email/change', { newEmail: 'nope' }, bearer(session)), 'invalid_request');
  await step('email change: a taken address', 202, post('/email/change', { newEmail: taken }, bearer(session)));
  await step('email change: ask', 202, post('/email/change', { newEmail }, bearer(session)));
  await step('email change: the old address still logs in', 200, post('/login', { email, password: PASSWORD }));
  const link = mailedToken(ses, newEmail, '/confirm-email-change', complain);
  await step('email change: confirm, a wrong token', 400, post('/email/change/confirm', { token: `${link.split('.')[0]}.${'A'.repeat(43)}` }), 'invalid_token');
  await step('email change: confirm', 204, post('/email/change/confirm', { token: link }));
  await step('email change: the link again', 400, post('/email/change/confirm', { token: link }), 'invalid_token');
  await step('email change: the old address', 401, post('/login', { email, password: PASSWORD }), 'invalid_credentials');
  await step('email change: the new address logs in', 200, post('/login', { email: newEmail, password: PASSWORD }));
  await step('email change: the session from before, ended', 401, { method: 'GET', path: '/sessions', headers: bearer(session) }, 'unauthenticated');
  const undo = mailedToken(ses, email, '/undo-email-change', complain);
  const undone = await step('email change: undo from the old address', 200, post('/email/change/undo', { token: undo }));
  if (undone?.emailRestored !== true) complain('the undo put the old address back', undone);
  await step('email change: the old address, its password locked', 401, post('/login', { email, password: PASSWORD }), 'invalid_credentials');
  return { transcript, wrong };
}

const emailChangeTranscripts = new Map<HostName, Transcript>();

/**
 * The hooks (packages/server/src/hooks), on for every host and every step: one receiver on loopback
 * answers both, verifying each request with the `standardwebhooks` package. Its default answer
 * lets every sign-up through and adds a claim to every token; an address at REFUSED_DOMAIN is
 * refused, and an address in `tokenHookAnswers` gets what the walk set for it.
 */
const HOOK_SECRET = newWebhookSecret();
const REFUSED_DOMAIN = 'refused.example.test';
const tokenHookAnswers = new Map<string, { status?: number; body: unknown }>();
let hooks: HookReceiver;

function answerHook(event: { type: string; data: Record<string, unknown> }) {
  const email = String(event.data.email);
  if (event.type === 'signup.requested') return { body: email.endsWith(`@${REFUSED_DOMAIN}`) ? { allow: false, code: 'domain_not_allowed' } : { allow: true } };
  return tokenHookAnswers.get(email) ?? { body: { claims: { tenant: 'contract' } } };
}

/**
 * The hooks on a host: a registration the sign-up hook refuses (403 with its code), the token
 * hook's claims in the access token at login and again at refresh (a role taken away is gone), a
 * reserved claim refusing the login and the refresh (503: the default failure setting), and the
 * refused refresh's token still good once the hook answers again.
 */
async function hookWalk(host: RunningHost): Promise<{ transcript: Transcript; wrong: string[] }> {
  const transcript: Transcript = [];
  const wrong: string[] = [];
  const step = async (label: string, status: number, request: HostRequest, code?: string): Promise<Body> => {
    const answer = await host.send(request);
    transcript.push({ label, request, status, ...(code !== undefined && { code }), answer });
    return answer.body === '' || answer.statusCode !== status ? undefined : (JSON.parse(answer.body) as Record<string, unknown>);
  };
  const expectThat = (label: string, holds: boolean, detail: unknown) => {
    if (!holds) wrong.push(`${label}: ${JSON.stringify(detail)}`);
  };
  const claimsOf = (body: Body): Record<string, unknown> => {
    try {
      return decodeJwt(String(body?.accessToken ?? body?.access_token));
    } catch {
      return {};
    }
  };
  const refused = `hooks-${randomUUID()}@${REFUSED_DOMAIN}`;
  const email = `hooks-${randomUUID()}@example.test`;
  const asked = hooks.received.length;

  await step('hooks: register, refused by the sign-up hook', 403, post('/register', { email: refused, password: PASSWORD }), 'signup_refused');
  const refusal = transcript.at(-1)!.answer.body;
  expectThat('the refusal carries the hook\'s code as its reason', refusal.includes('"reason":"domain_not_allowed"'), refusal);
  await step('hooks: login of the refused address', 401, post('/login', { email: refused, password: PASSWORD }), 'invalid_credentials');
  await step('hooks: register', 201, post('/register', { email, password: PASSWORD }));

  tokenHookAnswers.set(email, { body: { claims: { tenant: 't-1', roles: ['admin', 'billing'] } } });
  const login = await step('hooks: login', 200, post('/login', { email, password: PASSWORD }));
  expectThat('the token hook\'s claims are in the access token', JSON.stringify([claimsOf(login).tenant, claimsOf(login).roles]) === '["t-1",["admin","billing"]]', claimsOf(login));
  tokenHookAnswers.set(email, { body: { claims: { tenant: 't-1', roles: ['billing'] } } });
  const refreshed = await step('hooks: refresh', 200, refresh(login?.refreshToken));
  expectThat('a refresh asks again: the role taken away is gone', JSON.stringify(claimsOf(refreshed).roles) === '["billing"]', claimsOf(refreshed));

  tokenHookAnswers.set(email, { body: { claims: { sub: 'someone-else', tenant: 't-1' } } });
  await step('hooks: login, the hook answers a reserved claim', 503, post('/login', { email, password: PASSWORD }), 'token_hook_unavailable');
  expectThat('a refused login says when to try again', transcript.at(-1)!.answer.headers['retry-after'] === '5', transcript.at(-1)!.answer.headers);
  await step('hooks: refresh, the hook answers a reserved claim', 503, refresh(refreshed?.refresh_token), 'temporarily_unavailable');
  tokenHookAnswers.set(email, { status: 500, body: {} });
  await step('hooks: refresh, the hook fails', 503, refresh(refreshed?.refresh_token), 'temporarily_unavailable');
  tokenHookAnswers.delete(email);
  const again = await step('hooks: refresh, the refused token once the hook answers', 200, refresh(refreshed?.refresh_token));
  expectThat('the refused refreshes spent nothing: the same token refreshes', claimsOf(again).tenant === 'contract', claimsOf(again));

  const mine = hooks.received.slice(asked).filter((request) => request.event?.data.email === email || request.event?.data.email === refused);
  expectThat('every request to the hooks verified with standardwebhooks', hooks.received.slice(asked).every((request) => request.event !== undefined), hooks.received.slice(asked).length);
  expectThat(
    'the hooks were asked: the two sign-ups, then the token at each login and refresh',
    JSON.stringify(mine.map((request) => [request.event?.type, request.event?.data.trigger ?? request.event?.data.method])) ===
      JSON.stringify([
        ['signup.requested', 'password'],
        ['signup.requested', 'password'],
        ['token.claims_requested', 'login'],
        ['token.claims_requested', 'refresh'],
        ['token.claims_requested', 'login'],
        ['token.claims_requested', 'refresh'],
        ['token.claims_requested', 'refresh'],
        ['token.claims_requested', 'refresh'],
      ]),
    mine.map((request) => [request.event?.type, request.event?.data.trigger ?? request.event?.data.method]),
  );
  return { transcript, wrong };
}

const hookTranscripts = new Map<HostName, Transcript>();

beforeAll(async () => {
  [dynamo, ses, range, provider] = await Promise.all([
    startDynalite(),
    startSesCapture(),
    startRangeServer(),
    startOidcProvider({ redirectUris: [`${PUBLIC_URL}/oauth/idp/callback`, `${PUBLIC_URL}/oauth/idp-post/callback`] }),
  ]);
  hooks = await startHookReceiver(HOOK_SECRET, answerHook);
  range.breach(BREACHED_PASSWORD);
});

afterAll(async () => {
  await Promise.all([dynamo?.stop(), ses?.stop(), range?.stop(), provider?.stop(), hooks?.stop()]);
});

describe.each(HOST_NAMES)('%s', (name) => {
  let host: RunningHost | undefined;

  beforeAll(async () => {
    const table = `contract-${name}-${randomUUID()}`;
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), table, { maxWaitSeconds: 10 });
    host = await startHost(name, {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      PASSLANE_TABLE: table,
      PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(await generateSigningKey('ES256')),
      PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: String(FAILURE_LIMIT),
      PASSLANE_REFRESH_LIMIT_PER_SESSION: String(REFRESH_LIMIT),
      PASSLANE_REFRESH_GRACE_S: String(GRACE_SECONDS),
      // Discovery names where the keys are; no host takes that from a request's Host header.
      PASSLANE_PUBLIC_URL: PUBLIC_URL,
      // Sign-in with providers: the loopback OpenID provider, answering by query and by form post; the secret as a host binds it.
      PASSLANE_OAUTH_PROVIDERS: JSON.stringify({
        idp: { kind: 'oidc', issuer: provider.issuer, clientId: provider.clientId, scopes: ['openid', 'email'], redirectOrigins: [APP_URL] },
        'idp-post': { kind: 'oidc', issuer: provider.issuer, clientId: provider.clientId, scopes: ['openid', 'email'], redirectOrigins: [APP_URL], responseMode: 'form_post' },
      }),
      PASSLANE_OAUTH_IDP_CLIENT_SECRET: provider.clientSecret,
      PASSLANE_OAUTH_IDP_POST_CLIENT_SECRET: provider.clientSecret,
      // Browser apps: the app's origin only.
      PASSLANE_CORS_ORIGINS: LISTED_ORIGIN,
      // A secret wherever there is no data directory to generate one into (the edge hosts).
      PASSLANE_FINGERPRINT_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
      // Passkeys: the relying party and the page the software authenticator answers from.
      PASSLANE_WEBAUTHN_RP_ID: WEBAUTHN_RP_ID,
      PASSLANE_WEBAUTHN_ORIGINS: WEBAUTHN_ORIGIN,
      PASSLANE_MFA_KEYS: `contract:${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`,
      // Mail through the real SES client (the browser build on the edge hosts) to the capture.
      PASSLANE_MAIL_TRANSPORT: 'ses',
      PASSLANE_MAIL_FROM: MAIL_FROM,
      PASSLANE_APP_URL: APP_URL,
      PASSLANE_SES_ENDPOINT: ses.endpoint,
      // The breach check, on, against the local range server (never the real service).
      PASSLANE_BREACH_CHECK: 'true',
      PASSLANE_BREACH_CHECK_URL: range.url,
      AWS_REGION,
      AWS_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: 'contract-secret',
      // The hooks, on for every step (hookWalk): one receiver on loopback answers both.
      PASSLANE_TOKEN_HOOK_URL: hooks.url,
      PASSLANE_TOKEN_HOOK_SECRETS: HOOK_SECRET,
      PASSLANE_SIGNUP_HOOK_URL: hooks.url,
      PASSLANE_SIGNUP_HOOK_SECRETS: HOOK_SECRET,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
  }, 90_000);

  afterAll(async () => {
    await host?.stop();
  });

  it('answers every step as openapi.yaml declares', async () => {
    const asked = range.requests.length;
    const { transcript, wrong } = await runScript(host!, ses, provider);
    // k-anonymity from every host: 5 hex characters of the SHA-1 in the path, padding asked for, nothing else.
    const breachRequests = range.requests.slice(asked);
    expect(breachRequests.length).toBeGreaterThan(0);
    for (const request of breachRequests) {
      expect(request.path).toMatch(/^\/range\/[0-9A-F]{5}$/);
      expect(request.headers['add-padding']).toBe('true');
    }
    transcripts.set(name, transcript);
    const errorCode = (answer: HttpAnswer) => (answer.body === '' ? undefined : errorCodeOf(JSON.parse(answer.body)));
    expect(transcript.map(({ label, answer }) => [label, answer.statusCode, errorCode(answer)])).toEqual(
      transcript.map(({ label, status, code }) => [label, status, code]),
    );
    expect(wrong).toEqual([]);
    const problems = transcript
      // A preflight is the browser's question about an operation, not one the document declares.
      .filter(({ request }) => specPathOf(request.path) !== undefined && !isPreflight(request))
      .flatMap(({ label, request, answer }) => contractErrors(request.method, request.path, answer).map((problem) => `${label}: ${problem}`));
    expect(problems).toEqual([]);
    // Every route of the API was exercised, so a new route without a step here fails too.
    for (const route of API_ROUTES) {
      if (WALKED_APART.has(`${route.method} ${route.path}`)) continue;
      const pattern = honoPathPattern(route.path);
      // A redirect is the answer of the routes that send the browser on (a sign-in's start and callback).
      const served = transcript.some(({ request, answer }) => request.method === route.method && pattern.test(request.path.split('?')[0]!) && answer.statusCode < 400);
      expect(served, `${route.method} ${route.path} (${route.name})`).toBe(true);
    }
  }, 180_000);

  it('deletes an account (DELETE /account) as openapi.yaml declares, and as the Lambda function does', async () => {
    const { transcript, wrong } = await runDeletionScript(host!, ses);
    deletions.set(name, transcript);
    const errorCode = (answer: HttpAnswer) => (answer.body === '' ? undefined : errorCodeOf(JSON.parse(answer.body)));
    expect(transcript.map(({ label, answer }) => [label, answer.statusCode, errorCode(answer)])).toEqual(transcript.map(({ label, status, code }) => [label, status, code]));
    expect(wrong).toEqual([]);
    const problems = transcript.flatMap(({ label, request, answer }) => contractErrors(request.method, request.path, answer).map((problem) => `${label}: ${problem}`));
    expect(problems).toEqual([]);
    const reference = deletions.get('lambda');
    expect(reference, 'the lambda host ran first').toBeDefined();
    expect(transcript.map((step) => ({ step: step.label, ...comparable(step) }))).toEqual(reference!.map((step) => ({ step: step.label, ...comparable(step) })));
  }, 60_000);

  it('walks a change of email and its confirm, as openapi.yaml declares and as the Lambda functions answer', async () => {
    const { transcript, wrong } = await emailChangeWalk(host!, ses);
    emailChangeTranscripts.set(name, transcript);
    const errorCode = (answer: HttpAnswer) => (answer.body === '' ? undefined : errorCodeOf(JSON.parse(answer.body)));
    expect(transcript.map(({ label, answer }) => [label, answer.statusCode, errorCode(answer)])).toEqual(transcript.map(({ label, status, code }) => [label, status, code]));
    expect(wrong).toEqual([]);
    const problems = transcript.flatMap(({ label, request, answer }) => contractErrors(request.method, request.path, answer).map((problem) => `${label}: ${problem}`));
    expect(problems).toEqual([]);
    for (const path of OWN_WALK_PATHS) expect(transcript.some(({ request, answer }) => request.path === path && answer.statusCode < 300), path).toBe(true);
    if (name !== 'lambda') {
      const reference = emailChangeTranscripts.get('lambda');
      expect(reference, 'the lambda host ran first').toBeDefined();
      expect(transcript.map((step) => ({ step: step.label, ...comparable(step) }))).toEqual(reference!.map((step) => ({ step: step.label, ...comparable(step) })));
    }
  }, 120_000);

  it('asks the token and sign-up hooks as openapi.yaml declares, and as the Lambda functions do', async () => {
    const { transcript, wrong } = await hookWalk(host!);
    hookTranscripts.set(name, transcript);
    const errorCode = (answer: HttpAnswer) => (answer.body === '' ? undefined : errorCodeOf(JSON.parse(answer.body)));
    expect(transcript.map(({ label, answer }) => [label, answer.statusCode, errorCode(answer)])).toEqual(transcript.map(({ label, status, code }) => [label, status, code]));
    expect(wrong).toEqual([]);
    const problems = transcript.flatMap(({ label, request, answer }) => contractErrors(request.method, request.path, answer).map((problem) => `${label}: ${problem}`));
    expect(problems).toEqual([]);
    if (name !== 'lambda') {
      const reference = hookTranscripts.get('lambda');
      expect(reference, 'the lambda host ran first').toBeDefined();
      expect(transcript.map((step) => ({ step: step.label, ...comparable(step) }))).toEqual(reference!.map((step) => ({ step: step.label, ...comparable(step) })));
    }
  }, 60_000);

  it.runIf(name !== 'lambda')('answers exactly as the Lambda functions do', () => {
    const reference = transcripts.get('lambda');
    const own = transcripts.get(name);
    expect(reference, 'the lambda host ran first').toBeDefined();
    expect(own).toBeDefined();
    // A host that answers CORS itself skipped those steps (runScript); every other step compares.
    const labels = new Set(own!.map((step) => step.label));
    const compared = host!.corsOfItsOwn === undefined ? reference! : reference!.filter((step) => labels.has(step.label));
    expect(own!.map((step) => ({ step: step.label, ...comparable(step) }))).toEqual(compared.map((step) => ({ step: step.label, ...comparable(step) })));
  });
});
