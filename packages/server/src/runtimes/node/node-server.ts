/**
 * A long-lived Node HTTP server over the API (`npm start`, containers): @hono/node-server turns
 * node:http requests into web-standard Requests. No Lambda events are faked.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { createApi } from '../../api/create-api.js';
import type { AnyRoute } from '../../api/route.js';
import type { ApiLog } from '../../api/api-host.js';

export interface NodeHost {
  url: string;
  close(): Promise<void>;
}

export async function serveOnNode<S>(routes: readonly AnyRoute<S>[], services: S, options: { port: number; host: string; log: ApiLog }): Promise<NodeHost> {
  const app = createApi(routes, {
    services: () => services,
    origin: (c) => {
      const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
      return { sourceIp: incoming?.socket.remoteAddress?.replace(/^::ffff:/, '') || undefined, requestId: randomUUID() };
    },
    log: options.log,
  });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
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
    close: () =>
      new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((error) => (error ? fail(error) : done()));
      }),
  };
}
