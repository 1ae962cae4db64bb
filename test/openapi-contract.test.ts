/**
 * openapi.yaml against the handlers: it is what the routes and their schemas generate
 * (scripts/generate-openapi.ts), every path, method and status the handlers answer below is
 * declared, and each body matches the declared schema (required properties, types, enums),
 * carries the declared required headers and, for an error, one of the answer's listed codes. The document itself: it declares exactly API_ROUTES'
 * operations, every path parameter, `WWW-Authenticate` on bearer 401s and `Retry-After` on 429
 * and 503. The checker is deliberately small: it covers the keywords openapi.yaml uses and fails
 * on any other, so the two cannot drift apart silently.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { contractErrors, HTTP_METHODS, resolveRef, schemaErrors, spec, specPathOf, templatePattern, unsupportedKeywords, type Json } from './support/openapi.js';
import {
  createJwksHandler,
  createOpenIdConfigurationHandler,
  createLoginHandler,
  createFactorUndoHandler,
  createMfaHandler,
  createPasskeyLoginHandler,
  createFederationHandler,
  createPasskeysHandler,
  createPasswordHandler,
  createAccountHandler,
  createRecoveryHandler,
  createEmailChangeHandler,
  createRegisterHandler,
  createSessionsHandler,
  createTokenHandler,
} from './support/lambda-handlers.js';
import { createAuthDependencies, type AppDependencies } from './support/app-dependencies.js';
import type { HttpResponse } from './support/lambda-handlers.js';
import type { AccountMail } from '../packages/server/src/mail/account-mail.js';
import { API_ROUTES } from '../packages/server/src/wiring/api-routes.js';
import type { ErrorCode } from '../packages/server/src/accounts/errors.js';
import { ERROR_TABLE, type ErrorAnswer } from '../packages/server/src/api/error-table.js';
import { ADMIN_OPENAPI_FILE, isOperatorPath, OPENAPI_FILE, renderAdminOpenApi, renderOpenApi } from '../scripts/generate-openapi.js';
import { OPERATOR_ROUTES } from '../packages/server/src/features/operators/operator-routes.js';
import { parse as parseYaml } from 'yaml';
import { repoRoot } from './support/packaging.js';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { startLocalServer, type LocalServer } from '../packages/server/src/runtimes/node/local-server.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { freePort, startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

// ---- the handlers ----

function event(method: string, target: string, options: { body?: unknown; headers?: Record<string, string> } = {}): APIGatewayProxyEventV2 {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const [path = '', query = ''] = target.split(/\?(.*)/s);
  return {
    version: '2.0',
    routeKey: `${method} ${specPathOf(path) ?? path}`,
    rawPath: path,
    rawQueryString: query,
    headers: { 'content-type': 'application/json', ...options.headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '10.0.0.1', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey: `${method} ${specPathOf(path) ?? path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    ...(body !== undefined && { body }),
    isBase64Encoded: false,
  };
}

const context = { awsRequestId: randomUUID(), functionName: 'contract-test' } as Context;

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResponse>;

/** By the document's paths; the session routes share one function, as in serverless.yml. */
function handlersFor(getDeps: () => Promise<AppDependencies>): Record<string, Handler> {
  const sessions = createSessionsHandler(getDeps);
  const recovery = createRecoveryHandler(getDeps);
  const login = createLoginHandler(getDeps);
  const mfa = createMfaHandler(getDeps);
  const passkeys = createPasskeysHandler(getDeps);
  const passkeyLogin = createPasskeyLoginHandler(getDeps);
  const emailChange = createEmailChangeHandler(getDeps);
  const discovery = createOpenIdConfigurationHandler(async () => (await getDeps()).tokens);
  const federation = createFederationHandler(getDeps);
  return {
    '/oauth/{provider}/start': federation,
    '/oauth/{provider}/callback': federation,
    '/oauth/token': federation,
    '/identities': federation,
    '/identities/{id}': federation,
    '/identities/link': federation,
    '/register': createRegisterHandler(getDeps),
    '/login': login,
    '/login/mfa': login,
    '/mfa/totp': mfa,
    '/mfa/totp/confirm': mfa,
    '/mfa/recovery-codes': mfa,
    '/mfa/undo': createFactorUndoHandler(getDeps),
    '/passkeys': passkeys,
    '/passkeys/registration': passkeys,
    '/passkeys/registration/options': passkeys,
    '/passkeys/{id}': passkeys,
    '/passkey/login': passkeyLogin,
    '/passkey/login/options': passkeyLogin,
    '/token': createTokenHandler(getDeps),
    '/logout': sessions,
    '/sessions': sessions,
    '/sessions/{id}': sessions,
    '/devices/{id}': sessions,
    '/password': createPasswordHandler(getDeps),
    '/account': createAccountHandler(getDeps),
    '/password/reset': recovery,
    '/password/reset/confirm': recovery,
    '/email/verify': recovery,
    '/email/verify/resend': recovery,
    '/devices/approval': recovery,
    '/devices/approval/confirm': recovery,
    '/email/change': emailChange,
    '/email/change/confirm': emailChange,
    '/email/change/undo': emailChange,
    '/.well-known/jwks.json': createJwksHandler(async () => (await getDeps()).tokens),
    '/.well-known/openid-configuration': discovery,
    '/.well-known/oauth-authorization-server': discovery,
  };
}

const PASSWORD = 'correct horse battery staple';
/** A well-formed token nobody was sent: it gets as far as storage. */
const UNSENT_TOKEN = `${'0'.repeat(16)}.${'A'.repeat(43)}`;

/** The mails' tokens, by kind and address, as the links would carry them. */
function tokenMailbox(): AccountMail & { tokens: Array<{ kind: string; to: string; token?: string }> } {
  const tokens: Array<{ kind: string; to: string; token?: string }> = [];
  return {
    tokens,
    passwordReset: async (to, token) => void tokens.push({ kind: 'password_reset', to, token }),
    emailVerification: async (to, token) => void tokens.push({ kind: 'email_verification', to, token }),
    registrationAttempt: async (to) => void tokens.push({ kind: 'registration_attempt', to }),
    mfaChanged: async (to, change) => void tokens.push({ kind: `mfa_changed:${change}`, to }),
    deviceApproval: async (to, token) => void tokens.push({ kind: 'device_approval', to, token }),
    factorAdded: async (to, change, token) => void tokens.push({ kind: `factor_added:${change}`, to, token }),
    accountChanged: async (to, change) => void tokens.push({ kind: `account_changed:${change}`, to }),
    emailChange: async (to, token) => void tokens.push({ kind: 'email_change', to, token }),
    emailChangeAttempt: async (to) => void tokens.push({ kind: 'email_change_attempt', to }),
    emailChanged: async (to, _newEmail, token) => void tokens.push({ kind: 'email_changed', to, token }),
  };
}

describe('openapi.yaml', () => {
  let dynamo: RunningDynamoDb;
  let dataDir: string;
  let deps: Promise<AppDependencies>;
  /** Registration with email verification required: 202 for every email, 403 for an unverified login. */
  let verifyingDeps: Promise<AppDependencies>;
  const mailbox = tokenMailbox();
  const answered: Array<{ method: string; path: string; response: HttpResponse }> = [];

  beforeAll(async () => {
    dynamo = await startDynalite();
    dataDir = await mkdtemp(join(tmpdir(), 'passlane-openapi-'));
    const env = { DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: `contract-${randomUUID()}`, PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: '2', PASSLANE_REFRESH_LIMIT_PER_SESSION: '1', PASSLANE_PUBLIC_URL: 'https://auth.passlane.test' };
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), env.PASSLANE_TABLE);
    deps = createAuthDependencies(env, { dataDir, hasher: createPasswordHasher({ pepper: false }), mail: mailbox });
    verifyingDeps = createAuthDependencies(
      { ...env, PASSLANE_EMAIL_VERIFICATION: 'true', PASSLANE_REQUIRE_VERIFIED_EMAIL: 'true' },
      { dataDir, hasher: createPasswordHasher({ pepper: false }), mail: mailbox },
    );
  });

  afterAll(async () => {
    await dynamo?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is what the routes and their schemas generate (npm run generate:openapi)', () => {
    expect(readFileSync(join(repoRoot, OPENAPI_FILE), 'utf8')).toBe(renderOpenApi());
  });

  it('documents the public API alone: no operator path, which has its own document (openapi-admin.yaml) of exactly OPERATOR_ROUTES', () => {
    expect(Object.keys(spec.paths).filter(isOperatorPath)).toEqual([]);
    expect(() => renderOpenApi([...API_ROUTES, ...OPERATOR_ROUTES] as never)).toThrow(/belong in openapi-admin\.yaml/);
    const admin = readFileSync(join(repoRoot, ADMIN_OPENAPI_FILE), 'utf8');
    expect(admin).toBe(renderAdminOpenApi());
    const document = parseYaml(admin) as { paths: Record<string, Record<string, { operationId: string; security: unknown }>>; components: { securitySchemes: Record<string, unknown> } };
    const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })));
    expect(operations.map((o) => o.key).sort()).toEqual(OPERATOR_ROUTES.map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`).sort());
    // Every operation needs an operator: a SigV4 signature (Lambda) or an admin key (elsewhere).
    for (const { key, operation } of operations) expect(operation.security, key).toEqual([{ awsSigV4: [] }, { adminKey: [] }]);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['adminKey', 'awsSigV4']);
    expect(() => renderAdminOpenApi(API_ROUTES as never)).toThrow(/is not one of its routes/);
  });

  it('lists, on every error answer, the codes it may carry, each answered with that status by the error table', () => {
    for (const [path, item] of Object.entries<Json>(spec.paths)) {
      for (const method of HTTP_METHODS.filter((name) => item[name] !== undefined)) {
        for (const [status, declared] of Object.entries<Json>(item[method].responses)) {
          const answer = declared.$ref ? resolveRef(declared.$ref) : declared;
          const codes: ErrorCode[] | undefined = answer['x-error-codes'];
          if (Number(status) < 400) {
            expect(codes, `${method} ${path} ${status}`).toBeUndefined();
            continue;
          }
          expect(codes?.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
          // RFC 6749 §5.2's body (POST /token) carries the table's `oauth` codes: each of a code answered with this status.
          const oauth = answer.content?.['application/json']?.schema?.$ref === '#/components/schemas/OAuthError';
          const table = Object.entries(ERROR_TABLE as Record<ErrorCode, ErrorAnswer>).filter(([, row]) => row.status === Number(status));
          for (const code of codes ?? []) {
            const answeredHere = oauth ? table.some(([, row]) => row.oauth === code) : ERROR_TABLE[code]?.status === Number(status);
            expect(answeredHere, `${method} ${path} ${status} ${code}`).toBe(true);
          }
        }
      }
    }
  });

  it('is OpenAPI 3.1 and every $ref resolves', () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
    const refs: string[] = [];
    const walk = (node: Json): void => {
      if (node && typeof node === 'object') {
        if (typeof node.$ref === 'string') refs.push(node.$ref);
        Object.values(node).forEach(walk);
      }
    };
    walk(spec);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(() => resolveRef(ref), ref).not.toThrow();
  });

  it('declares exactly the routes the functions serve', () => {
    expect(Object.keys(spec.paths).sort()).toEqual(Object.keys(handlersFor(() => deps)).sort());
  });

  it('declares every operation of API_ROUTES, and no other', () => {
    // hono's `/sessions/:id` is OpenAPI's `/sessions/{id}`.
    const routes = API_ROUTES.map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`).sort();
    const declared = Object.entries<Json>(spec.paths).flatMap(([path, item]) =>
      HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(declared.sort()).toEqual(routes);
  });

  it('declares each path template\'s parameters, as required path parameters', () => {
    for (const [path, item] of Object.entries<Json>(spec.paths)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      expect(templatePattern(path).test(path.replace(/\{[^}]+\}/g, 'x')), path).toBe(true);
      for (const method of HTTP_METHODS.filter((name) => item[name] !== undefined)) {
        const parameters = [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((parameter: Json) => (parameter.$ref ? resolveRef(parameter.$ref) : parameter));
        const declared = parameters.filter((parameter: Json) => parameter.in === 'path');
        expect(declared.map((parameter: Json) => parameter.name).sort(), `${method} ${path}`).toEqual(inPath);
        for (const parameter of declared) expect(parameter.required, `${method} ${path} ${parameter.name}`).toBe(true);
        for (const parameter of parameters) expect(['path', 'query', 'header'], `${method} ${path} ${parameter.name}`).toContain(parameter.in);
      }
    }
  });

  it('names the scheme on every bearer 401 and the wait on every 429 and 503', () => {
    for (const [path, item] of Object.entries<Json>(spec.paths)) {
      for (const method of HTTP_METHODS.filter((name) => item[name] !== undefined)) {
        const operation = item[method];
        const response = (status: string) => {
          const declared = operation.responses[status];
          return declared?.$ref ? resolveRef(declared.$ref) : declared;
        };
        const header = (status: string, name: string) => {
          const declared = response(status)?.headers?.[name];
          return declared?.$ref ? resolveRef(declared.$ref) : declared;
        };
        const bearer = (operation.security ?? spec.security ?? []).some((requirement: Json) => 'bearerAuth' in requirement);
        if (bearer) {
          expect(response('401'), `${method} ${path} 401`).toBeDefined();
          expect(header('401', 'WWW-Authenticate'), `${method} ${path} 401 WWW-Authenticate`).toBeDefined();
        }
        for (const status of ['429', '503'].filter((code) => response(code) !== undefined)) {
          expect(header(status, 'Retry-After')?.required, `${method} ${path} ${status} Retry-After`).toBe(true);
        }
      }
    }
  });

  it('uses only the schema keywords the checker knows', () => {
    const schemas: Array<[string, Json]> = Object.entries<Json>(spec.components.schemas).map(([name, schema]) => [`#/components/schemas/${name}`, schema]);
    const walk = (node: Json, at: string): void => {
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries<Json>(node)) {
        if (key === 'schema') schemas.push([`${at}.schema`, value]);
        else if (key !== 'schemas') walk(value, `${at}.${key}`);
      }
    };
    walk(spec.paths, 'paths');
    walk(spec.components, 'components');
    expect(schemas.flatMap(([at, schema]) => unsupportedKeywords(schema, at))).toEqual([]);
  });

  it('declares every status the handlers answer, with matching bodies and headers', async () => {
    const handlers = handlersFor(() => deps);
    const send = async (expectedStatus: number, method: string, path: string, options?: Parameters<typeof event>[2]) => {
      const response = await handlers[specPathOf(path) ?? path]!(event(method, path, options), context);
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(expectedStatus);
      answered.push({ method, path, response });
      return JSON.parse(response.body || 'null');
    };
    const email = `contract-${randomUUID()}@example.test`;

    await send(201, 'POST', '/register', { body: { email, password: PASSWORD } });
    await send(409, 'POST', '/register', { body: { email, password: PASSWORD } });
    await send(400, 'POST', '/register', { body: { email: 'nope', password: PASSWORD } });
    await send(400, 'POST', '/register', { body: '{' });
    await send(413, 'POST', '/register', { body: { email, password: 'x'.repeat(9000) } });
    await send(415, 'POST', '/register', { body: {}, headers: { 'content-type': 'text/plain' } });
    await send(405, 'GET', '/register');

    const { accessToken, refreshToken } = await send(200, 'POST', '/login', { body: { email, password: PASSWORD } });
    await send(401, 'POST', '/login', { body: { email, password: 'wrong password' } });
    await send(400, 'POST', '/login', { body: { email } });

    // Refresh: JSON, the grace window as a form, the per-session limit (1 here), then the failures.
    const refresh = (token: string) => ({ body: { grant_type: 'refresh_token', refresh_token: token } });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const pair = await send(200, 'POST', '/token', refresh(refreshToken));
    await send(200, 'POST', '/token', { body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(), headers: form });
    await send(429, 'POST', '/token', refresh(pair.refresh_token));
    await send(400, 'POST', '/token', refresh('garbage'));
    await send(400, 'POST', '/token', { body: { grant_type: 'password' } });
    await send(400, 'POST', '/token', { body: 'grant_type=refresh_token&grant_type=refresh_token', headers: form });
    await send(400, 'POST', '/token', { body: '{' });
    await send(413, 'POST', '/token', { body: 'x'.repeat(9000), headers: form });
    await send(415, 'POST', '/token', { body: 'grant_type=refresh_token', headers: { 'content-type': 'text/plain' } });
    await send(405, 'GET', '/token');

    // Sessions: list, end another, end one's own; the login's session goes on for the password steps.
    const sidOf = (token: string) => String(decodeJwt(token).sid);
    const own = { authorization: `Bearer ${pair.access_token}` };
    const other = await send(200, 'POST', '/login', { body: { email, password: PASSWORD } });
    await send(200, 'GET', '/sessions', { headers: own });
    await send(401, 'GET', '/sessions');
    await send(405, 'PUT', '/sessions', { headers: own });
    await send(204, 'DELETE', `/sessions/${sidOf(other.accessToken)}`, { headers: own });
    await send(404, 'DELETE', `/sessions/${sidOf(other.accessToken)}`, { headers: own });
    await send(401, 'DELETE', `/sessions/${sidOf(other.accessToken)}`, { headers: { authorization: `Bearer ${other.accessToken}` } });
    await send(405, 'GET', `/sessions/${sidOf(other.accessToken)}`, { headers: own });
    const third = await send(200, 'POST', '/login', { body: { email, password: PASSWORD } });
    await send(400, 'POST', '/logout?scope=everywhere', { headers: { authorization: `Bearer ${third.accessToken}` } });
    await send(204, 'POST', '/logout', { headers: { authorization: `Bearer ${third.accessToken}` } });
    await send(401, 'POST', '/logout', { headers: { authorization: `Bearer ${third.accessToken}` } });
    await send(204, 'POST', '/logout?scope=others', { headers: own });
    await send(405, 'GET', '/logout', { headers: own });

    const bearer = { authorization: `Bearer ${accessToken}` };
    await send(401, 'POST', '/password', { body: { currentPassword: PASSWORD, newPassword: 'x' } });
    await send(401, 'POST', '/password', { body: { currentPassword: 'wrong password', newPassword: 'another passphrase' }, headers: bearer });
    await send(400, 'POST', '/password', { body: { currentPassword: PASSWORD }, headers: bearer });
    await send(204, 'POST', '/password', { body: { currentPassword: PASSWORD, newPassword: 'another long passphrase' }, headers: bearer });

    // Email verification: a new link for the signed-in account, used once.
    const lastToken = (kind: string) => mailbox.tokens.findLast((mail) => mail.kind === kind && mail.to === email)?.token;
    const signedIn = await send(200, 'POST', '/login', { body: { email, password: 'another long passphrase' } });
    await send(401, 'POST', '/email/verify/resend');
    await send(405, 'GET', '/email/verify/resend');
    await send(202, 'POST', '/email/verify/resend', { headers: { authorization: `Bearer ${signedIn.accessToken}` } });
    await send(400, 'POST', '/email/verify', { body: { token: 'garbage' } });
    await send(400, 'POST', '/email/verify', { body: '[]' });
    await send(400, 'POST', '/email/verify', { body: '{' });
    await send(413, 'POST', '/email/verify', { body: { token: 'x'.repeat(9000) } });
    await send(415, 'POST', '/email/verify', { body: {}, headers: { 'content-type': 'text/plain' } });
    await send(405, 'GET', '/email/verify');
    await send(204, 'POST', '/email/verify', { body: { token: lastToken('email_verification') } });
    await send(400, 'POST', '/email/verify', { body: { token: lastToken('email_verification') } });

    // Password reset: the same answer for an unknown email; the mailed token sets a password once.
    await send(202, 'POST', '/password/reset', { body: { email } });
    await send(202, 'POST', '/password/reset', { body: { email: `nobody-${randomUUID()}@example.test` } });
    await send(400, 'POST', '/password/reset', { body: { email: 'nope' } });
    await send(400, 'POST', '/password/reset', { body: '{' });
    await send(413, 'POST', '/password/reset', { body: { email: 'x'.repeat(9000) } });
    await send(415, 'POST', '/password/reset', { body: {}, headers: { 'content-type': 'text/plain' } });
    await send(405, 'GET', '/password/reset');
    await send(400, 'POST', '/password/reset/confirm', { body: { token: 'garbage', newPassword: 'a passphrase from the link' } });
    await send(400, 'POST', '/password/reset/confirm', { body: { token: lastToken('password_reset') } });
    await send(400, 'POST', '/password/reset/confirm', { body: '{' });
    await send(413, 'POST', '/password/reset/confirm', { body: { token: 'x'.repeat(9000) } });
    await send(415, 'POST', '/password/reset/confirm', { body: {}, headers: { 'content-type': 'text/plain' } });
    await send(405, 'GET', '/password/reset/confirm');
    await send(204, 'POST', '/password/reset/confirm', { body: { token: lastToken('password_reset'), newPassword: 'a passphrase from the link' } });
    await send(400, 'POST', '/password/reset/confirm', { body: { token: lastToken('password_reset'), newPassword: 'a passphrase from the link' } });
    // Two failures of this email from this source (the limit here) make the next attempt wait;
    // the good logins above cleared the earlier one.
    await send(401, 'POST', '/login', { body: { email, password: 'wrong password' } });
    await send(401, 'POST', '/login', { body: { email, password: 'wrong password' } });
    await send(429, 'POST', '/login', { body: { email, password: PASSWORD } });

    // Device approval: the same answer for an unknown email; the mailed link with the asking client's secret, once.
    const approval = await send(202, 'POST', '/devices/approval', { body: { email } });
    await send(202, 'POST', '/devices/approval', { body: { email: `nobody-${randomUUID()}@example.test` } });
    await send(400, 'POST', '/devices/approval', { body: { email: 'nope' } });
    await send(400, 'POST', '/devices/approval', { body: '{' });
    await send(413, 'POST', '/devices/approval', { body: { email: 'x'.repeat(9000) } });
    await send(415, 'POST', '/devices/approval', { body: {}, headers: { 'content-type': 'text/plain' } });
    await send(405, 'GET', '/devices/approval');
    await send(400, 'POST', '/devices/approval/confirm', { body: { token: lastToken('device_approval') } });
    await send(400, 'POST', '/devices/approval/confirm', { body: '[]' });
    await send(413, 'POST', '/devices/approval/confirm', { body: { token: 'x'.repeat(9000) } });
    await send(415, 'POST', '/devices/approval/confirm', { body: {}, headers: { 'content-type': 'text/plain' } });
    await send(405, 'GET', '/devices/approval/confirm');
    await send(200, 'POST', '/devices/approval/confirm', { body: { token: lastToken('device_approval'), clientSecret: approval.clientSecret } });
    await send(400, 'POST', '/devices/approval/confirm', { body: { token: lastToken('device_approval'), clientSecret: approval.clientSecret } });

    await send(200, 'GET', '/.well-known/jwks.json');
    await send(405, 'DELETE', '/.well-known/jwks.json');
    await send(200, 'GET', '/.well-known/openid-configuration');
    await send(200, 'GET', '/.well-known/oauth-authorization-server');
    await send(405, 'POST', '/.well-known/oauth-authorization-server');

    // A change of email: asked for by a fresh login, a wrong token, the link, the old address's undo.
    const mover = `contract-${randomUUID()}@example.test`;
    const moved = `contract-${randomUUID()}@example.test`;
    await send(201, 'POST', '/register', { body: { email: mover, password: PASSWORD } });
    const moverSession = { authorization: `Bearer ${(await send(200, 'POST', '/login', { body: { email: mover, password: PASSWORD } })).accessToken}` };
    await send(401, 'POST', '/email/change', { body: { newEmail: moved } });
    await send(400, 'POST', '/email/change', { body: { newEmail: 'nope' }, headers: moverSession });
    await send(202, 'POST', '/email/change', { body: { newEmail: moved }, headers: moverSession });
    await send(400, 'POST', '/email/change/confirm', { body: { token: UNSENT_TOKEN } });
    await send(204, 'POST', '/email/change/confirm', { body: { token: mailbox.tokens.findLast((mail) => mail.kind === 'email_change' && mail.to === moved)?.token } });
    const moverUndo = mailbox.tokens.findLast((mail) => mail.kind === 'email_changed' && mail.to === mover)?.token;
    await send(200, 'POST', '/email/change/undo', { body: { token: moverUndo } });
    await send(400, 'POST', '/email/change/undo', { body: { token: moverUndo } });

    // With email verification required: registration answers alike for a new and a taken email,
    // and a correct password on an unverified account is 403.
    const verifying = handlersFor(() => verifyingDeps);
    const unverified = `contract-${randomUUID()}@example.test`;
    for (const [status, method, path, options] of [
      [202, 'POST', '/register', { body: { email: unverified, password: PASSWORD } }],
      [202, 'POST', '/register', { body: { email: unverified, password: PASSWORD } }],
      [403, 'POST', '/login', { body: { email: unverified, password: PASSWORD } }],
    ] as const) {
      const response = await verifying[path]!(event(method, path, options), context);
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(status);
      answered.push({ method, path, response });
    }

    // Storage down and unexpected failures, through the same handlers.
    const closed = await freePort();
    const down = createAuthDependencies({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${closed}` }, { dataDir, hasher: createPasswordHasher({ pepper: false }) });
    const outage = handlersFor(() => down);
    const broken = handlersFor(() => Promise.reject(new Error('boom')));
    const credentials = { body: { email, password: PASSWORD } };
    const failures: Array<[Record<string, Handler>, number, string, string, Parameters<typeof event>[2]]> = [
      [outage, 503, 'POST', '/login', credentials],
      [outage, 503, 'POST', '/register', credentials],
      [outage, 503, 'POST', '/token', refresh(pair.refresh_token)],
      [outage, 503, 'GET', '/sessions', { headers: own }],
      [outage, 503, 'POST', '/logout', { headers: own }],
      [outage, 503, 'DELETE', `/sessions/${sidOf(pair.access_token)}`, { headers: own }],
      [outage, 503, 'POST', '/password/reset', { body: { email } }],
      [outage, 503, 'POST', '/password/reset/confirm', { body: { token: UNSENT_TOKEN, newPassword: 'a passphrase from the link' } }],
      [outage, 503, 'POST', '/email/verify', { body: { token: UNSENT_TOKEN } }],
      [outage, 503, 'POST', '/email/verify/resend', { headers: own }],
      [outage, 503, 'POST', '/devices/approval', { body: { email } }],
      [outage, 503, 'POST', '/devices/approval/confirm', { body: { token: UNSENT_TOKEN } }],
      [broken, 500, 'POST', '/login', credentials],
      [broken, 500, 'POST', '/token', refresh(pair.refresh_token)],
      [broken, 500, 'GET', '/sessions', { headers: own }],
      [broken, 500, 'GET', '/.well-known/jwks.json', {}],
      [broken, 500, 'POST', '/password/reset', { body: { email } }],
      [broken, 500, 'POST', '/email/verify/resend', { headers: own }],
    ];
    for (const [handlers_, status, method, path, options] of failures) {
      const response = await handlers_[specPathOf(path) ?? path]!(event(method, path, options), context);
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(status);
      answered.push({ method, path, response });
    }

    const problems = answered.flatMap(({ method, path, response }) =>
      contractErrors(method, path, response).map((problem) => `${method} ${path} ${response.statusCode}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  describe('the local server router', () => {
    let server: LocalServer;

    beforeAll(async () => {
      server = await startLocalServer({ port: 0, dataDir, dynamoDbEndpoint: dynamo.endpoint, env: { PASSLANE_TABLE: `contract-${randomUUID()}` } });
    });

    afterAll(async () => {
      await server?.stop();
    });

    it('answers unknown paths and methods with the documented error body', async () => {
      const notFound = await fetch(`${server.url}/nope`);
      expect(notFound.status).toBe(404);
      expect(schemaErrors(spec.components.responses.NotFound.content['application/json'].schema, await notFound.json())).toEqual([]);

      const wrongMethod = await fetch(`${server.url}/login`, { method: 'PUT' });
      const headers: Record<string, string> = {};
      wrongMethod.headers.forEach((value, name) => (headers[name] = value));
      const response: HttpResponse = { statusCode: wrongMethod.status, headers, body: await wrongMethod.text() };
      expect(response.statusCode).toBe(405);
      expect(contractErrors('PUT', '/login', response)).toEqual([]);
    });
  });
});
