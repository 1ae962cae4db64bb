/**
 * passlane as a Vercel Edge Function: the same API, WASM argon2 from the statically imported
 * module (packages/passlane/src/edge.ts). Vercel passes environment variables as `process.env`; set the same ones
 * as the Worker's bindings (packages/server/src/runtimes/workers/worker-env.ts). Deploy the bundle `npm run build:vercel` writes.
 */
import { getConnInfo } from 'hono/vercel';
import { createApi } from '../../api/create-api.js';
import { API_ROUTES } from '../../wiring/api-routes.js';
import type { ApiServices } from '../../wiring/api-services.js';
import { edgeServices } from '../workers/edge-dependencies.js';
import { edgeLog } from '../workers/edge-log.js';
import { readWorkerCors } from '../workers/worker-env.js';

export const config = { runtime: 'edge' };

// This runtime's one read of its environment (process.env where Vercel provides it), into one
// object for the isolate's life: the dependencies built from it are kept per object.
const env = { ...globalThis.process?.env };

const app = createApi<ApiServices>(API_ROUTES, {
  services: () => edgeServices(env),
  cors: () => readWorkerCors(env),
  // getConnInfo reads X-Real-IP, which Vercel sets to the client's address itself (a client-sent
  // value is overwritten).
  origin: (c) => ({ sourceIp: getConnInfo(c).remote.address, requestId: c.req.header('x-vercel-id') }),
  log: edgeLog,
});

export default function handler(request: Request): Promise<Response> {
  return Promise.resolve(app.fetch(request));
}
