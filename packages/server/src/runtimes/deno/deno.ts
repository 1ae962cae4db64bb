/**
 * passlane on Deno: serves the API (native argon2 through Node-API, hence --allow-ffi) on PORT
 * (3000) and HOST (127.0.0.1). Run from the repository after `npm ci` (see README.md), as
 * `npm run start:deno`:
 *   deno run --allow-net --allow-env --allow-read --allow-write="${PASSLANE_DATA_DIR:-.data}" --allow-ffi --allow-sys packages/server/dist/runtimes/deno/deno.js
 * Write access to the data directory is what the outbox and the local keys need; without it the
 * start fails, naming the directory (the outbox is checked at start, not at the first mail).
 */
import { getConnInfo } from 'hono/deno';
import { readCorsConfig } from '../../config/cors-config.js';
import { readEventDeliveryConfig } from '../../config/event-delivery-config.js';
import { readConfig } from '../../config/read-config.js';
import { readServerConfig } from '../../config/server-config.js';
import { createFetchServerApi } from '../fetch-server.js';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { port: number; hostname: string; onListen?(address: { port: number }): void },
    handler: (request: Request, info: unknown) => Promise<Response> | Response,
  ): unknown;
};

// Deno's one read of its environment: where to listen, and the settings the wiring builds from.
const env = Deno.env.toObject();
const { port, host: hostname } = readServerConfig(env);
const app = await createFetchServerApi(readConfig(env), getConnInfo, readCorsConfig(env), readEventDeliveryConfig(env));
Deno.serve(
  { port, hostname, onListen: (address) => console.log(`passlane (deno) listening on http://${hostname}:${address.port}`) },
  // The serve info (its remoteAddr) as hono's env, where getConnInfo reads it.
  (request, info) => app.fetch(request, info),
);
