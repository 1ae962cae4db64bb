/**
 * passlane on Bun: `bun packages/server/src/runtimes/bun/bun.ts` serves the API (native argon2, as on Node) on PORT (3000)
 * and HOST (127.0.0.1). Configuration is the same env as every host; the table must exist
 * (`npm start`'s dynalite, or the deployed one).
 */
import { getConnInfo } from 'hono/bun';
import { readCorsConfig } from '../../config/cors-config.js';
import { readEventDeliveryConfig } from '../../config/event-delivery-config.js';
import { readConfig } from '../../config/read-config.js';
import { readServerConfig } from '../../config/server-config.js';
import { createFetchServerApi } from '../fetch-server.js';

interface BunServer {
  port: number;
  requestIP(request: Request): { address: string } | null;
}
declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: { port: number; hostname: string; fetch(request: Request, server: BunServer): Promise<Response> | Response }): BunServer;
};

// Bun's one read of its environment: where to listen, and the settings the wiring builds from.
const env = Bun.env;
const { port, host } = readServerConfig(env);
const app = await createFetchServerApi(readConfig(env), getConnInfo, readCorsConfig(env), readEventDeliveryConfig(env));
const server = Bun.serve({
  port,
  hostname: host,
  // The server as hono's env, where getConnInfo asks it for the client's address (requestIP).
  fetch: (request, bunServer) => app.fetch(request, bunServer),
});
console.log(`passlane (bun) listening on http://${host}:${server.port}`);
