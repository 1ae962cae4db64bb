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
import { edgeLog, log } from './edge-log.js';
import { safeErrorFields } from '../../observability/safe-error.js';
import { readWorkerCors, type WorkerEnv } from './worker-env.js';
import { sweepEventsOnSchedule } from './worker-events.js';

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

/** What workerd hands `scheduled` to keep it running after it returns. */
interface ScheduledContext {
  waitUntil(promise: Promise<unknown>): void;
}

export default {
  fetch: app.fetch,
  // The cron trigger (wrangler.toml): account events to the webhooks (worker-events.ts).
  scheduled(_controller: unknown, env: WorkerEnv, context: ScheduledContext): void {
    context.waitUntil(sweepEventsOnSchedule(env).catch((error: unknown) => log('ERROR', 'event sweep failed', { error: safeErrorFields(error) })));
  },
};
