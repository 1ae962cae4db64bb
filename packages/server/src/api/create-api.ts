import type { Context } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
// The smallest router: a handful of static paths need no RegExp or trie router.
import { Hono } from 'hono/tiny';
import { allowedOrigins, grantAnswer, isPreflight, preflightAnswers, type CorsMode } from './cors.js';
import type { ErrorBodyName } from './error-table.js';
import { HttpError } from './http-error.js';
import { mapError, toErrorResponse } from './map-error.js';
import { readJsonBody } from './read-json-body.js';
import { toWebResponse, type ApiResponse } from './responses.js';
import { parseBody } from './request-body.js';
import type { AnyRoute, Authentication, AuthenticatorServices } from './route.js';
import { bearerToken } from './bearer-token.js';
import type { ApiHost, ApiLog, RequestOrigin } from './api-host.js';
import { DEFAULT_CORS_CONFIG } from './settings.js';

/** What one request's steps pass each other (hono's typed context variables). */
export interface ApiEnv {
  Variables: {
    origin: RequestOrigin;
    /** The origins the host's CORS settings list (cors.ts). */
    corsOrigins: ReadonlySet<string>;
    /** Set by the handler that answers: its route's CORS mode, or `preflight` (already answered). */
    cors: CorsMode | 'preflight';
  };
}

/**
 * The HTTP API over web-standard Request/Response: routing, unknown paths and methods, body
 * checks (the envelope, then the route's schema), errors as `{"error":{"code","message"}}` (or
 * RFC 6749 §5.2's body on a route that says so, `errorBody`), security headers, CORS (cors.ts).
 * Runtime-neutral: a host adapter turns its platform's requests into `app.fetch` calls (src/runtimes).
 */
export function createApi<S>(routes: readonly AnyRoute<S>[], host: ApiHost<S>): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const respond = host.respond ?? toWebResponse;
  // Asked once per request and passed on in the context, so every step sees the same request id.
  app.use(async (c, next) => {
    c.set('origin', host.origin(c));
    c.set('corsOrigins', allowedOrigins(host.cors?.(c) ?? DEFAULT_CORS_CONFIG));
    await next();
  });
  // Outside the secure headers, so a public route's Cross-Origin-Resource-Policy is the last word.
  app.use(async (c, next) => {
    await next();
    const mode = c.var.cors ?? 'listed-origins';
    if (mode !== 'preflight') grantAnswer(c, mode, c.var.corsOrigins ?? new Set());
  });
  // An API answers JSON only: no CSP for documents, but nosniff, no framing, HSTS and friends.
  app.use(secureHeaders({ contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } }));

  const methodsByPath = new Map<string, string[]>();
  const errorBodyByPath = new Map<string, ErrorBodyName>();
  // Known paths only in logs: an arbitrary path is user input (it could hold an email).
  const logged = (c: Context<ApiEnv>) => ({ route: methodsByPath.has(c.req.path) ? c.req.path : 'unknown', requestId: c.var.origin?.requestId });
  for (const route of routes) {
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
    const errorBody = route.errorBody ?? 'api';
    // A path's 405 speaks its routes' error body; `api` where they differ.
    const pathBody = errorBodyByPath.get(route.path);
    errorBodyByPath.set(route.path, pathBody === undefined || pathBody === errorBody ? errorBody : 'api');
    app.on(route.method, route.path, async (c) => {
      c.set('cors', route.cors ?? 'listed-origins');
      try {
        const request = c.req.raw;
        const services = host.services(c);
        // Whether it is served here, the envelope (content type, size, UTF-8 JSON), who asks, the body's fields.
        await route.offered?.(services);
        const read = route.body === undefined ? undefined : await readJsonBody(request, { form: route.body.form === true, held: host.body?.(c) });
        const caller = route.authenticate === undefined ? undefined : await callerOf(route.authenticate, request, services);
        const body = route.body === undefined ? undefined : parseBody(route.body.schema, read);
        const answer = await route.handle({ request, body, caller, params: c.req.param() as Record<string, string>, origin: c.var.origin, services });
        return answer instanceof Response ? answer : respond(answer);
      } catch (error) {
        // Here rather than in onError: only the route knows which error body it answers.
        return respond(respondToError(error, logged(c), host.log, errorBody));
      }
    });
  }
  // A Function URL (or a proxy) sends every method to the app: `method_not_allowed` names the
  // ones served, except to a browser's preflight, which gets its CORS answer (cors.ts). Static
  // paths first: the router answers with the first match, and `/devices/approval` is itself,
  // not `/devices/:id`.
  const paths = [...methodsByPath].sort(([a], [b]) => Number(a.includes(':')) - Number(b.includes(':')));
  for (const [path, methods] of paths) {
    const allow = methods.join(', ');
    const errorBody = errorBodyByPath.get(path);
    const modes = new Map(routes.filter((route) => route.path === path).map((route) => [route.method, route.cors]));
    const preflight = preflightAnswers(methods, (method) => modes.get(method as AnyRoute<S>['method']));
    app.all(path, (c) => {
      if (!isPreflight(c.req.raw)) return respond(respondToError(new HttpError('method_not_allowed', `use ${allow}`, { allow }), logged(c), host.log, errorBody));
      c.set('cors', 'preflight');
      return preflight(c, c.var.corsOrigins);
    });
  }
  app.notFound(() => respond(toErrorResponse(mapError(new HttpError('not_found', 'no such route')))));
  app.onError((error, c) => respond(respondToError(error, logged(c), host.log)));
  return app;
}

/** The caller as the route's declaration demands, from its services' authenticator (the route's type says it has one). */
async function callerOf(authentication: Authentication, request: Request, services: unknown): Promise<unknown> {
  const authenticator = await (services as AuthenticatorServices<unknown>).authenticator();
  return authenticator(authentication, bearerToken(request.headers.get('authorization') ?? undefined));
}

/**
 * Logs by severity and answers the mapped error: the client's fault (4xx) as INFO with field
 * names only, "try again" (5xx but `internal_error`) as WARN with the cause, the rest as ERROR;
 * an error goes to the log only as the log's `safeError` gives it.
 */
export function respondToError(error: unknown, fields: Record<string, unknown>, log: ApiLog, body: ErrorBodyName = 'api'): ApiResponse {
  const mapped = mapError(error, body);
  const { status, code, field, reason } = mapped;
  if (code === 'internal_error') {
    log.error('unhandled error', { ...fields, error: log.safeError(error) });
  } else if (status >= 500) {
    log.warn('request failed', { ...fields, status, code, cause: log.safeError(error) });
  } else {
    log.info('request rejected', { ...fields, status, code, ...(field && { field }), ...(reason && { reason }) });
  }
  return toErrorResponse(mapped, body);
}
