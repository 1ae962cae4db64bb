/**
 * passlane on Cloudflare Workers: the same API as every host (src/api), served by workerd.
 * argon2id runs on the WASM backend from the statically imported module (packages/passlane/src/edge.ts); DynamoDB
 * through the AWS SDK. Configuration and secrets are bindings (see wrangler.toml and packages/server/src/runtimes/workers/README.md).
 */
import { getConnInfo } from 'hono/cloudflare-workers';
import { createApi } from '../../api/create-api.js';
import { API_ROUTES } from '../../wiring/api-routes.js';
import type { ApiServices } from '../../wiring/api-services.js';
import { edgeServices } from './edge-dependencies.js';
import { edgeLog } from './edge-log.js';
import { readWorkerCors, type WorkerEnv } from './worker-env.js';

export type { WorkerEnv } from './worker-env.js';

const app = createApi<ApiServices>(API_ROUTES, {
  // Bindings arrive with each request; the dependencies built from them are kept per isolate.
  services: (c) => edgeServices(c.env as WorkerEnv),
  cors: (c) => readWorkerCors(c.env as WorkerEnv),
  // Cloudflare sets both (CF-Connecting-IP, which getConnInfo reads, and CF-Ray) on every request
  // from the internet; the Worker is not reached any other way.
  origin: (c) => ({ sourceIp: getConnInfo(c).remote.address, requestId: c.req.header('cf-ray') }),
  log: edgeLog,
});

export default { fetch: app.fetch };
