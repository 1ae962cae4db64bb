/**
 * The whole API in this process over a fixture's dependencies, as the long-lived hosts serve it
 * (every route, `servicesOf`), its log silent, and one call: a JSON body and a Bearer token in,
 * the status and the JSON body out.
 */
import { createApi } from '../../packages/server/src/api/create-api.js';
import type { AnyRoute } from '../../packages/server/src/api/route.js';
import type { AppDependencies } from '../../packages/server/src/wiring/build-dependencies.js';
import { API_ROUTES } from '../../packages/server/src/wiring/api-routes.js';
import { servicesOf, type ApiServices } from '../../packages/server/src/wiring/api-services.js';

export interface ApiAnswer {
  status: number;
  /** The parsed JSON, or {} for an empty body. */
  body: Record<string, unknown>;
}

/** An answer with its headers too, for the tests that read them (cookies, Retry-After). */
export interface ApiAnswerWithHeaders extends ApiAnswer {
  headers: Headers;
}

export type ApiCall<A extends ApiAnswer = ApiAnswer> = (method: string, path: string, request?: { body?: unknown; token?: string }) => Promise<A>;

/** Answers are `{ status, body }` (what most tests compare whole), with `headers` only when asked. */
export function inProcessApi(deps: AppDependencies, sourceIp: string): ApiCall;
export function inProcessApi(deps: AppDependencies, sourceIp: string, options: { withHeaders: true }): ApiCall<ApiAnswerWithHeaders>;
export function inProcessApi(deps: AppDependencies, sourceIp: string, options: { withHeaders?: boolean } = {}): ApiCall<ApiAnswer> {
  const quiet = () => {};
  const log = { info: quiet, warn: quiet, error: quiet, safeError: (error: unknown) => (error instanceof Error ? error.name : typeof error) };
  const api = createApi(API_ROUTES as AnyRoute<ApiServices>[], { services: () => servicesOf(deps), origin: () => ({ sourceIp, requestId: 'req' }), log });
  return async (method, path, request = {}) => {
    const headers: Record<string, string> = {};
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
    const response = await api.fetch(new Request(`http://api.test${path}`, { method, headers, ...(request.body !== undefined && { body: JSON.stringify(request.body) }) }));
    const text = await response.text();
    const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    return options.withHeaders === true ? { status: response.status, headers: response.headers, body } : { status: response.status, body };
  };
}
