import type { RequestOrigin } from './api-host.js';
import type { ErrorBodyName } from './error-table.js';
import type { OperationDoc } from './operation-doc.js';
import type { BodyOf, BodySchema } from './request-body.js';
import type { ApiResponse } from './responses.js';
import type { Authentication, Authenticator } from '../accounts/authentication.js';

export type { Authentication, Authenticator } from '../accounts/authentication.js';

/** What a route's handler is given: nothing is read from module state. */
export interface RouteInput<S, B extends BodySchema | undefined = undefined, C = undefined> {
  request: Request;
  /** The body as the route's schema typed it (routes with a `body`); undefined otherwise. */
  body: B extends BodySchema ? BodyOf<B> : undefined;
  /** Who asks, as the route's `authenticate` decided (routes with one); undefined otherwise. */
  caller: C;
  /** The path's parameters (`/sessions/:id` gives `id`). */
  params: Record<string, string>;
  origin: RequestOrigin;
  services: S;
}

/** The service a route with `authenticate` asks for besides its feature's: its callers' check. */
export interface AuthenticatorServices<C> {
  authenticator(): Promise<Authenticator<C>>;
}

/** A route's JSON body: its schema, checked before the handler runs, and its name in the API's document. */
export interface RouteBody<B extends BodySchema> {
  name: string;
  schema: B;
  /** Also accept an `application/x-www-form-urlencoded` body, read into the same shape (OAuth 2.0 clients). */
  form?: boolean;
}

/**
 * One HTTP operation: where it is served, what it takes and what it does. `S` names the services
 * it needs (its feature's, features/<feature>/dependencies.ts), so a host serving only some
 * routes builds only those; `B` is its body's schema; `C` who asks, where it checks that first.
 */
export interface Route<S, B extends BodySchema | undefined = undefined, C = undefined> {
  /** Stable, for logs and metrics (never the raw path, which a Function URL lets clients choose). */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** hono's syntax: `/sessions/:id`. */
  path: string;
  /**
   * `any-origin`: a public resource any site may read (`Access-Control-Allow-Origin: *`, no
   * credentials, `Cross-Origin-Resource-Policy: cross-origin`): the public keys, discovery.
   * Unset: only the origins the host's CORS settings list, with credentials (cors.ts).
   */
  cors?: 'any-origin';
  /**
   * The JSON body: read and checked (content type, size, UTF-8 JSON, then the schema) before the
   * handler runs, which is handed what the schema typed. Routes without one read no body.
   */
  body?: B extends BodySchema ? RouteBody<B> : undefined;
  /**
   * Whether this deployment serves the route at all (passkeys: only with a relying party),
   * checked before anything else, the caller included, is read.
   */
  offered?(services: S): Promise<void>;
  /**
   * Who may call it (`Authentication`): the services' `authenticator` checks the Bearer token
   * after the body is read and before its schema runs, so a caller without a session is told
   * so, not what the body lacks; handed to the handler as `caller`. It also makes the
   * document's `security` bearer.
   */
  authenticate?: Authentication;
  /**
   * How its errors are answered, including the toolkit's for its path (405, 413, 415, 500):
   * `api` (the default) the API's `{"error":{"code","message"}}`; `oauth` RFC 6749 §5.2's flat
   * `{"error","error_description"}` with `Pragma: no-cache`, for OAuth 2.0 clients (POST /token).
   * The error table (error-table.ts) gives each code its answer in both.
   */
  errorBody?: ErrorBodyName;
  /** The operation as the API's document describes it (openapi.yaml is generated from it). */
  doc: OperationDoc;
  /** Its answer: an ApiResponse (responses.ts), or a web Response, handed on as it is. */
  handle(input: RouteInput<S, B, C>): Promise<ApiResponse | Response>;
}

/** Any route over the services `S`, whatever its body and caller: what a list of routes holds. */
export type AnyRoute<S> = Route<S, BodySchema | undefined, unknown>;

/** A route with a caller (`C`) declares `authenticate`, and its services hold that caller's check; one without declares none. */
type Authenticated<S, C> = undefined extends C ? { authenticate?: undefined } : S extends AuthenticatorServices<C> ? { authenticate: Authentication } : { authenticate: never };

export function defineRoute<S, B extends BodySchema | undefined = undefined, C = undefined>(route: Route<S, B, C> & Authenticated<S, C>): Route<S, B, C> {
  return route;
}
