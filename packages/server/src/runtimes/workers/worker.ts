/**
 * passlane on Cloudflare Workers: the same API as every host (src/api), served by workerd.
 * argon2id runs on the WASM backend from the statically imported module (packages/passlane/src/edge.ts); DynamoDB
 * through the AWS SDK. Configuration and secrets are bindings (see wrangler.toml and packages/server/src/runtimes/workers/README.md).
 */
// workerd's AsyncLocalStorage, under the `nodejs_als` compatibility flag (wrangler.toml): the one `node:` import the bundle keeps.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ExecutionContext } from 'hono';
import { getConnInfo } from 'hono/cloudflare-workers';
import { createApi } from '../../api/create-api.js';
import { API_ROUTES } from '../../wiring/api-routes.js';
import type { ApiServices } from '../../wiring/api-services.js';
import { edgeServices } from './edge-dependencies.js';
import { deliverAppendedEvents, sweepEdgeEvents } from './edge-events.js';
import { edgeLog, log } from './edge-log.js';
import { edgePlatform } from './edge-platform.js';
import { requestAppends } from './request-appends.js';
import { safeErrorFields } from '../../observability/safe-error.js';
import { readWorkerCors, type WorkerEnv } from './worker-env.js';

export type { WorkerEnv } from './worker-env.js';

/** What workerd hands `scheduled` to keep it running after it returns. */
interface ScheduledContext {
  waitUntil(promise: Promise<unknown>): void;
}

// Each request's appended accounts, apart from the other requests this isolate serves at once.
const appends = requestAppends(new AsyncLocalStorage<Set<string>>());
const services = edgeServices({ ...edgePlatform, afterEventAppend: appends.record });

const app = createApi<ApiServices>(API_ROUTES, {
  // Bindings arrive with each request; the dependencies built from them are kept per isolate.
  services: (c) => services(c.env as WorkerEnv),
  cors: (c) => readWorkerCors(c.env as WorkerEnv),
  // Cloudflare sets both (CF-Connecting-IP, which getConnInfo reads, and CF-Ray) on every request
  // from the internet; the Worker is not reached any other way.
  origin: (c) => ({ sourceIp: getConnInfo(c).remote.address, requestId: c.req.header('cf-ray') }),
  log: edgeLog,
});

export default {
  // After the answer, the accounts this request's writes appended events to go to the webhooks
  // (edge-events.ts), within the request's waitUntil: no second process, no minute's wait.
  async fetch(request: Request, env: WorkerEnv, context: ExecutionContext): Promise<Response> {
    const { response, accountIds } = await appends.collect(async () => app.fetch(request, env, context));
    if (accountIds.length > 0) context.waitUntil(deliverAppendedEvents(env, accountIds));
    return response;
  },
  // The cron trigger (wrangler.toml): every pending outbox, the safety net of the above.
  scheduled(_controller: unknown, env: WorkerEnv, context: ScheduledContext): void {
    context.waitUntil(sweepEdgeEvents(env).catch((error: unknown) => log('ERROR', 'event sweep failed', { error: safeErrorFields(error) })));
  },
};
