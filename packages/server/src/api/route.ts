import type { ApiResponse } from './responses.js';
import type { RequestOrigin } from './api-host.js';

/** What a route's handler is given: nothing is read from module state. */
export interface RouteInput<S> {
  request: Request;
  /** The parsed JSON body (routes with `json: true`); undefined otherwise. */
  body: unknown;
  /** The path's parameters (`/sessions/:id` gives `id`). */
  params: Record<string, string>;
  origin: RequestOrigin;
  services: S;
}

/**
 * One HTTP operation: where it is served and what it does. `S` names the services it needs, so a
 * host serving only some routes builds only those (see services.ts).
 */
export interface Route<S> {
  /** Stable, for logs and metrics (never the raw path, which a Function URL lets clients choose). */
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** hono's syntax: `/sessions/:id`. */
  path: string;
  /** Read and check a JSON body (content type, size, UTF-8 JSON) before the handler runs. */
  json: boolean;
  /** Also accept an `application/x-www-form-urlencoded` body, read into the same shape (OAuth 2.0 clients). */
  form?: boolean;
  /** Its answer: an ApiResponse (responses.ts), or a web Response, handed on as it is. */
  handle(input: RouteInput<S>): Promise<ApiResponse | Response>;
}

export function defineRoute<S>(route: Route<S>): Route<S> {
  return route;
}
