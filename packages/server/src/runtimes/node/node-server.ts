/**
 * A long-lived Node HTTP server over the API (`npm start`, containers): @hono/node-server turns
 * node:http requests into web-standard Requests. No Lambda events are faked.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createApi } from '../../api/create-api.js';
import type { AnyRoute } from '../../api/route.js';
import type { ApiLog } from '../../api/api-host.js';
import type { CorsConfig } from '../../api/settings.js';

export interface NodeHost {
  url: string;
  /** The port it listens on (the one the OS picked for port 0). */
  port: number;
  close(): Promise<void>;
}

/** What @hono/node-server hands a handler: the Request, and `{ incoming }` as its env. */
export type NodeFetch = (request: Request, env: unknown) => Response | Promise<Response>;

/** One answered request, for a console line: never a path no route or page serves (it could hold an email). */
export interface RequestSummary {
  method: string;
  /** The route's path pattern (`/sessions/:id`), the page's path, or `unknown`. */
  route: string;
  status: number;
  ms: number;
}

export interface NodeApiOptions {
  log: ApiLog;
  /** The origins browsers may call the API from (PASSLANE_CORS_ORIGINS, config/cors-config.ts); none unless given. */
  cors?: CorsConfig;
  /** Answers a request before the API does (`npm start`'s pages), or undefined to pass it on. */
  before?: (request: Request) => Response | undefined;
  /** Called once per answered request (`npm start`'s one line per request). */
  onRequest?: (request: RequestSummary) => void;
}

export async function serveOnNode<S>(routes: readonly AnyRoute<S>[], services: S, options: { port: number; host: string } & NodeApiOptions): Promise<NodeHost> {
  return listenOnNode(nodeApiFetch(routes, services, options), options);
}

/** The API (and `before`'s answers) as a handler for listenOnNode, with the client's address from the socket. */
export function nodeApiFetch<S>(routes: readonly AnyRoute<S>[], services: S, options: NodeApiOptions): NodeFetch {
  const { cors } = options;
  const app = createApi(routes, {
    services: () => services,
    ...(cors && { cors: () => cors }),
    origin: (c) => {
      // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d: the limits key on a.b.c.d.
      return { sourceIp: getConnInfo(c).remote.address?.replace(/^::ffff:/, '') || undefined, requestId: randomUUID() };
    },
    log: options.log,
  });
  const { before, onRequest } = options;
  if (before === undefined && onRequest === undefined) return app.fetch;
  const routeOf = routeMatcher(routes.map((route) => route.path));
  return async (request, env) => {
    const started = performance.now();
    const page = before?.(request);
    const response = page ?? (await app.fetch(request, env));
    if (onRequest !== undefined) {
      const { pathname } = new URL(request.url);
      const route = page === undefined ? routeOf(pathname) : pathname;
      onRequest({ method: request.method, route, status: response.status, ms: performance.now() - started });
    }
    return response;
  };
}

/** Listens on `port` (0: any free one) and `host`; the caller names the setting a failure is about. */
export async function listenOnNode(fetch: NodeFetch, options: { port: number; host: string }): Promise<NodeHost> {
  const server = createAdaptorServer({ fetch }) as Server;
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host, () => {
      server.off('error', fail);
      done();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    port,
    close: () =>
      new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((error) => (error ? fail(error) : done()));
      }),
  };
}

/** hono's path patterns (`/sessions/:id`) as a lookup from a request's path to its pattern, else `unknown`. */
function routeMatcher(patterns: readonly string[]): (path: string) => string {
  // Static paths first: `/devices/approval` is itself, not `/devices/:id`.
  const compiled = [...new Set(patterns)].sort((a, b) => Number(a.includes(':')) - Number(b.includes(':'))).map((pattern) => ({
    pattern,
    regexp: new RegExp(`^${pattern.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`),
  }));
  return (path) => compiled.find(({ regexp }) => regexp.test(path))?.pattern ?? 'unknown';
}
