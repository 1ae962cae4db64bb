/**
 * The API for a long-lived server whose runtime hands `app.fetch` what it knows of the connection
 * (Deno's `Deno.serve` its info, Bun's `Bun.serve` its server): dependencies built once at start
 * from the settings the entry read from its environment (or passed in code); the client's address
 * from the runtime's `getConnInfo` (hono's adapter for it), which the entry passes; the origins
 * browsers may call it from, as the entry read them (PASSLANE_CORS_ORIGINS); and, with webhooks
 * (PASSLANE_WEBHOOKS), the delivery of account events in this process.
 */
import type { Context, Hono } from 'hono';
import { createApi, type ApiEnv } from '../api/create-api.js';
import { DEFAULT_CORS_CONFIG, type CorsConfig } from '../api/settings.js';
import { servedApi } from '../wiring/operator-api.js';
import type { PasslaneConfig } from '../config/read-config.js';
import { createAccountMail } from '../mail/account-mail.js';
import { buildAuthDependencies } from '../wiring/build-dependencies.js';
import { nodePlatform } from './node/node-platform.js';
import { apiLog } from '../observability/logger.js';
import type { EventDeliverySettings } from '../features/events/settings.js';
import type { Platform } from '../wiring/platform.js';
import { startHostEventDelivery, type HostEventDelivery } from './host-event-delivery.js';

export async function createFetchServerApi(
  config: PasslaneConfig,
  getConnInfo: (c: Context) => { remote: { address?: string } },
  cors: CorsConfig = DEFAULT_CORS_CONFIG,
  events?: EventDeliverySettings,
): Promise<Hono<ApiEnv>> {
  // With webhooks (the entry read PASSLANE_WEBHOOKS), an in-process deliverer for the process's
  // life: each write's events at once, and a sweep every PASSLANE_EVENT_SWEEP_S (host-event-delivery.ts).
  // Set once the deliverer starts; a write before that is swept instead.
  const started: { delivery?: HostEventDelivery } = {};
  const platform: Platform = events?.webhooks.length ? { ...nodePlatform, afterEventAppend: (accountId) => started.delivery?.afterAppend(accountId) } : nodePlatform;
  // A broken template, or an outbox this process may not write (Deno's --allow-write), stops the start.
  const mail = createAccountMail(config.mail, platform.mail ?? {});
  await mail.ready();
  // The operator API beside the public one only with PASSLANE_ADMIN_KEYS (features/operators).
  const { routes, services } = servedApi(config, await buildAuthDependencies(config, platform, { mail }, { mailAtStart: true }));
  const delivery = startHostEventDelivery(events, config.storage, platform, { info: (message, fields) => apiLog.info(message, fields), warn: (message, fields) => apiLog.warn(message, fields) });
  if (delivery !== undefined) started.delivery = delivery;
  return createApi(routes, {
    services: () => services,
    cors: () => cors,
    origin: (c) => ({ sourceIp: getConnInfo(c).remote.address, requestId: crypto.randomUUID() }),
    log: apiLog,
  });
}
