/**
 * passlane as a Vercel Edge Function: the same API, WASM argon2 from the statically imported
 * module (packages/passlane/src/edge.ts). Vercel passes environment variables as `process.env`; set the same ones
 * as the Worker's bindings (packages/server/src/runtimes/workers/worker-env.ts). Deploy the bundle `npm run build:vercel` writes.
 * Account events go to the webhooks after each request that appended some (waitUntil), and at
 * Vercel Cron's call of CRON_SWEEP_PATH (cron-sweep.ts); README.md.
 */
import { getConnInfo } from 'hono/vercel';
import { createApi } from '../../api/create-api.js';
import { API_ROUTES } from '../../wiring/api-routes.js';
import type { ApiServices } from '../../wiring/api-services.js';
import type { Platform } from '../../wiring/platform.js';
import { edgeServices } from '../workers/edge-dependencies.js';
import { deliverAppendedEvents, sweepEdgeEvents } from '../workers/edge-events.js';
import { edgeLog } from '../workers/edge-log.js';
import { edgePlatform } from '../workers/edge-platform.js';
import { requestAppends, type RequestStorage } from '../workers/request-appends.js';
import { readWorkerCors } from '../workers/worker-env.js';
import { answerCronSweep, CRON_SWEEP_PATH } from './cron-sweep.js';

export const config = { runtime: 'edge' };

/** What Vercel hands an Edge Function beside the request (the `@vercel/functions` package reads the same from a global). */
export interface VercelRequestContext {
  waitUntil(promise: Promise<unknown>): void;
}

// This runtime's one read of its environment (process.env where Vercel provides it), into one
// object for the isolate's life: the dependencies built from it are kept per object.
const env = { ...globalThis.process?.env };

// Vercel's Edge runtime offers AsyncLocalStorage as a global: each request's appended accounts,
// apart from the other requests this isolate serves at once. Without it, the cron route delivers.
const AsyncLocalStorageOfVercel = (globalThis as { AsyncLocalStorage?: new () => RequestStorage<Set<string>> }).AsyncLocalStorage;
const appends = AsyncLocalStorageOfVercel === undefined ? undefined : requestAppends(new AsyncLocalStorageOfVercel());
const platform: Platform = appends === undefined ? edgePlatform : { ...edgePlatform, afterEventAppend: appends.record };
const services = edgeServices(platform);

const app = createApi<ApiServices>(API_ROUTES, {
  services: () => services(env),
  cors: () => readWorkerCors(env),
  // getConnInfo reads X-Real-IP, which Vercel sets to the client's address itself (a client-sent
  // value is overwritten).
  origin: (c) => ({ sourceIp: getConnInfo(c).remote.address, requestId: c.req.header('x-vercel-id') }),
  log: edgeLog,
});

/** An Edge Function must start its answer within 25 s; the sweep stops between accounts before. */
const CRON_SWEEP_BUDGET_MS = 20_000;

export default async function handler(request: Request, context?: VercelRequestContext): Promise<Response> {
  if (new URL(request.url).pathname === CRON_SWEEP_PATH) return answerCronSweep(request, env, { sweep: sweepEdgeEvents, log: edgeLog, budgetMs: CRON_SWEEP_BUDGET_MS });
  const waitUntil = requestWaitUntil(context);
  if (appends === undefined || waitUntil === undefined) return app.fetch(request);
  const { response, accountIds } = await appends.collect(async () => app.fetch(request));
  if (accountIds.length > 0) waitUntil(deliverAppendedEvents(env, accountIds));
  return response;
}

/**
 * The request's waitUntil: the handler's second argument, else the request context Vercel keeps on
 * a global (where `@vercel/functions`' waitUntil finds it). Without one, work after the answer
 * could be frozen midway: the events then wait for the cron route.
 */
function requestWaitUntil(context: VercelRequestContext | undefined): ((promise: Promise<unknown>) => void) | undefined {
  if (typeof context?.waitUntil === 'function') return (promise) => context.waitUntil(promise);
  const fromGlobal = (globalThis as Record<symbol, { get?: () => Partial<VercelRequestContext> | undefined } | undefined>)[Symbol.for('@vercel/request-context')]?.get?.();
  return typeof fromGlobal?.waitUntil === 'function' ? (promise) => fromGlobal.waitUntil!(promise) : undefined;
}
