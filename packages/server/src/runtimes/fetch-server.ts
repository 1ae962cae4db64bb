/**
 * The API for a long-lived server whose runtime hands `app.fetch` the client's address (Deno's
 * `Deno.serve`, Bun's `Bun.serve`): dependencies built once at start from the settings the entry
 * read from its environment (or passed in code), the address passed as `app.fetch(request, { ip })`.
 */
import type { Hono } from 'hono';
import { createApi, type ApiEnv } from '../api/create-api.js';
import { API_ROUTES } from '../wiring/api-routes.js';
import { servicesOf } from '../wiring/api-services.js';
import type { PasslaneConfig } from '../config/read-config.js';
import { createAccountMail } from '../mail/account-mail.js';
import { buildAuthDependencies } from '../wiring/build-dependencies.js';
import { nodePlatform } from './node/node-platform.js';
import { apiLog } from '../observability/logger.js';

export async function createFetchServerApi(config: PasslaneConfig): Promise<Hono<ApiEnv>> {
  // A broken template, or an outbox this process may not write (Deno's --allow-write), stops the start.
  const mail = createAccountMail(config.mail, nodePlatform.mail ?? {});
  await mail.ready();
  const services = servicesOf(await buildAuthDependencies(config, nodePlatform, { mail }, { mailAtStart: true }));
  return createApi(API_ROUTES, {
    services: () => services,
    origin: (c) => ({ sourceIp: (c.env as { ip?: string } | undefined)?.ip, requestId: crypto.randomUUID() }),
    log: apiLog,
  });
}
