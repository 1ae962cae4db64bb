import type { Context } from 'hono';
import { cors } from 'hono/cors';
import type { CorsConfig } from './settings.js';

/**
 * Browsers on another origin (README.md here, "CORS"): a listed origin may call every route with
 * credentials; the routes marked `cors: 'any-origin'` (public keys, discovery) answer any origin,
 * without credentials; every other origin gets no grant, so its pages cannot read an answer.
 */
export type CorsMode = 'any-origin' | 'listed-origins';

/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours anyway). */
export const CORS_MAX_AGE_S = 600;
/** What a page may send beyond the safelisted headers: a JSON body and a Bearer token. */
export const CORS_ALLOWED_HEADERS = ['content-type', 'authorization'];
/** What a page may read beyond the safelisted headers: when to try again, and why a token was refused. */
export const CORS_EXPOSED_HEADERS = ['retry-after', 'www-authenticate'];

const allowLists = new WeakMap<CorsConfig, ReadonlySet<string>>();

/** The allowed origins as a set, made once per settings object (a Worker's come with each isolate's bindings). */
export function allowedOrigins(config: CorsConfig): ReadonlySet<string> {
  let allowed = allowLists.get(config);
  if (allowed === undefined) allowLists.set(config, (allowed = new Set(config.allowedOrigins)));
  return allowed;
}

/** A CORS preflight: OPTIONS naming the page's origin and the method it means to send. */
export function isPreflight(request: Request): boolean {
  return request.method === 'OPTIONS' && request.headers.has('origin') && request.headers.has('access-control-request-method');
}

/**
 * The answer to preflights for one path: hono's cors middleware, with the path's methods. A
 * public route's method is granted to any origin without credentials; any other to a listed
 * origin with them; an unlisted origin gets a 204 that grants nothing (the browser then refuses).
 */
export function preflightAnswers(methods: readonly string[], modeOf: (method: string) => CorsMode | undefined) {
  const common = { allowMethods: [...methods], allowHeaders: CORS_ALLOWED_HEADERS, maxAge: CORS_MAX_AGE_S };
  const anyOrigin = cors({ ...common, origin: '*' });
  // Called only for a listed origin, so the origin is echoed and credentials go with it.
  const listedOrigin = cors({ ...common, origin: (origin) => origin, credentials: true, exposeHeaders: CORS_EXPOSED_HEADERS });
  const noop = () => Promise.resolve();
  return async (c: Context, allowed: ReadonlySet<string>): Promise<Response> => {
    const mode = modeOf(c.req.header('access-control-request-method') ?? '') ?? 'listed-origins';
    if (mode === 'any-origin') return (await anyOrigin(c, noop)) as Response;
    if (allowed.has(c.req.header('origin') ?? '')) return (await listedOrigin(c, noop)) as Response;
    return new Response(null, { status: 204, headers: { vary: 'Origin' } });
  };
}

/**
 * Grants an answer to the page that asked, on the Response the route (or the toolkit's error
 * handling) gave. Set after the answer exists, on its own headers: hono's cors middleware sets
 * them before, on a placeholder hono then copies the route's Response into, a copy the Lambda
 * host's body-holding TextResponse would not survive (runtimes/lambda/text-response.ts).
 */
export function grantAnswer(c: Context, mode: CorsMode, allowed: ReadonlySet<string>): void {
  const headers = c.res.headers;
  if (mode === 'any-origin') {
    headers.set('access-control-allow-origin', '*');
    // A public document may be read, and embedded, by any site (secure headers say same-origin).
    headers.set('cross-origin-resource-policy', 'cross-origin');
    return;
  }
  if (allowed.size === 0) return;
  // The answer depends on the Origin header: caches must key on it.
  headers.append('vary', 'Origin');
  const origin = c.req.header('origin');
  if (origin === undefined || !allowed.has(origin)) return;
  headers.set('access-control-allow-origin', origin);
  headers.set('access-control-allow-credentials', 'true');
  headers.set('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(','));
}
