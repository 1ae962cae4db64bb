/**
 * `npm start`: the API on http://localhost:3000 (127.0.0.1 and ::1) through the Node host
 * (node-server.ts), the same app every host serves. Storage is an embedded dynalite persisted under the data directory, or
 * DYNAMODB_ENDPOINT when set. Mail goes to `<data dir>/outbox/*.eml` and its links to this server,
 * which serves pages for them (local-pages.ts) unless PASSLANE_APP_URL names the user's own app.
 * The console gets one readable line per request and log entry (local-log.ts). The tokens' issuer
 * is the server's own URL unless PASSLANE_JWT_ISSUER says otherwise, so OAuth clients and key
 * lookups that start from `iss` (discovery, get-jwks) find this server.
 *
 * Env: PORT (3000), HOST (127.0.0.1), DYNAMODB_PORT (8000), DYNAMODB_ENDPOINT, PASSLANE_DATA_DIR
 * (.data), PASSLANE_LOG_FORMAT (text; json: Lambda's lines), plus everything the API reads
 * (PASSLANE_TABLE, PASSLANE_APP_URL, PASSLANE_LOGIN_LIMIT_*, ...).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import * as fs from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../config/config-error.js';
import { text, type Env } from '../../config/env.js';
import { localServerUrl, readServerConfig } from '../../config/server-config.js';
import { codeOf, makeDirectory } from '../../shared/make-directory.js';
import type { Platform } from '../../wiring/platform.js';
import type { ApiLog } from '../../api/api-host.js';
import { createLocalLog, type LocalLog, type LocalLogOutput } from './local-log.js';
import { createLocalPages, type LocalPages } from './local-pages.js';
import { listenOnNode, nodeApiFetch, type NodeFetch, type NodeHost } from './node-server.js';
import { stopOnSignals } from './stop-on-signals.js';
import type { HostEventDelivery } from '../host-event-delivery.js';

export interface LocalServerOptions {
  /** Defaults to PORT, else 3000; 0 picks a free port. */
  port?: number;
  host?: string;
  /** Defaults to PASSLANE_DATA_DIR, else `.data`: the dynalite files, the outbox and the local keys. */
  dataDir?: string;
  /** Embedded dynalite's port: DYNAMODB_PORT, else 8000; 0 picks a free port. */
  dynamoDbPort?: number;
  /** Use this DynamoDB(-compatible) server instead of the embedded dynalite (DYNAMODB_ENDPOINT). */
  dynamoDbEndpoint?: string;
  /** Defaults to process.env. */
  env?: Env;
  /**
   * `text`: a readable line per request and per log entry (npm start's default); `json`: the
   * Powertools JSON lines of Lambda, and no request lines. PASSLANE_LOG_FORMAT wins; else `json`.
   */
  logs?: 'text' | 'json';
  /** Where text lines go; default the console (INFO on stdout, WARN and ERROR on stderr). */
  output?: LocalLogOutput;
}

export interface LocalServer {
  /** http://localhost:<port> for a loopback or wildcard host (localServerUrl), else the host's own. */
  url: string;
  /** The access tokens' `iss`: PASSLANE_JWT_ISSUER, else `url`, where discovery starts. */
  issuer: string;
  dynamoDbEndpoint: string;
  dataDir: string;
  /** Where the mails' links point: PASSLANE_APP_URL, else this server (as http://localhost:<port>). */
  appUrl: string | undefined;
  /** The pages this server serves for those links; undefined when they point at another app. */
  pages: LocalPages['paths'] | undefined;
  /** `<data dir>/outbox` when mail goes there (PASSLANE_MAIL_TRANSPORT outbox, the default). */
  outboxDir: string | undefined;
  /** Whether this server delivers account events to webhooks (PASSLANE_WEBHOOKS set). */
  deliversEvents: boolean;
  stop(): Promise<void>;
}

export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const env = options.env ?? process.env;
  const config = readServerConfig(env);
  const host = options.host ?? config.host;
  const port = options.port ?? config.port;
  const dataDir = resolve(options.dataDir ?? config.dataDir);
  try {
    await makeDirectory(fs, dataDir);
  } catch (error) {
    throw new ConfigError('PASSLANE_DATA_DIR', `${dataDir} cannot be created (${codeOf(error) ?? 'error'}): name a directory this user may write`);
  }

  // EMF lines only mean something to CloudWatch; set before the handlers (and Metrics) load.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

  const external = options.dynamoDbEndpoint ?? config.dynamoDbEndpoint;
  const dynalite = external ? undefined : await startDynalite(host, options.dynamoDbPort ?? config.dynamoDbPort, join(dataDir, 'dynalite'));
  const dynamoDbEndpoint = external ?? dynalite!.endpoint;

  // Listening first, then building: the mails' links need the port, which is the OS's choice for
  // PORT=0. A request in between waits for the build (nothing knows the URL before the banner).
  let built: (value: NodeFetch | Promise<never>) => void = () => {};
  const api = new Promise<NodeFetch>((resolveApi) => (built = resolveApi));
  api.catch(() => {}); // a failed build is thrown below; requests meanwhile just fail
  const listenerFetch: NodeFetch = async (request, context) => (await api)(request, context);
  let listener: NodeHost;
  try {
    listener = await listenOnNode(listenerFetch, { port, host }).catch((error: unknown) => {
      throw listenError(error, 'PORT', host, port);
    });
  } catch (error) {
    await dynalite?.stop();
    throw error;
  }
  // One origin for all a developer is given: the banner, the README, the mails' links, the passkey
  // pages and the tokens' issuer (which OAuth discovery compares exactly with the URL it starts
  // from) say http://localhost:<port> for a loopback host. `localhost` may resolve to ::1 first,
  // so the server listens on the other loopback address too, where this machine has one.
  const url = localServerUrl(host, listener.port);
  const alsoListening = url.startsWith('http://localhost:') ? await listenOnOtherLoopback(listener, host, listenerFetch) : undefined;
  const issuer = text(env, 'PASSLANE_JWT_ISSUER') ?? url;
  const handlerEnv: Env = {
    // A developer's server: discovery may name the address it was reached at (not in deployments).
    PASSLANE_DISCOVERY_TRUST_HOST: 'true',
    // Passkeys on this machine: the page must be opened at http://localhost:<port> (an IP cannot be an RP ID).
    ...(text(env, 'PASSLANE_WEBAUTHN_RP_ID') === undefined &&
      text(env, 'PASSLANE_WEBAUTHN_ORIGINS') === undefined && { PASSLANE_WEBAUTHN_RP_ID: 'localhost', PASSLANE_WEBAUTHN_ORIGINS: `http://localhost:${listener.port}` }),
    ...env,
    PASSLANE_JWT_ISSUER: issuer,
    DYNAMODB_ENDPOINT: dynamoDbEndpoint,
    PASSLANE_DATA_DIR: dataDir,
    // What the mails link to when PASSLANE_APP_URL is unset (config/mail-config.ts).
    HOST: host,
    PORT: String(listener.port),
  };

  let served: Served;
  try {
    served = await serveApi(handlerEnv, options.logs ?? config.logFormat ?? 'json', options.output, url);
    built(served.fetch);
  } catch (error) {
    built(Promise.reject(error));
    await alsoListening?.close();
    await listener.close();
    await dynalite?.stop();
    throw error;
  }

  let stopped: Promise<void> | undefined;
  return {
    url,
    issuer,
    dynamoDbEndpoint,
    dataDir,
    appUrl: served.appUrl,
    pages: served.pages?.paths,
    outboxDir: served.outboxDir,
    deliversEvents: served.deliversEvents,
    stop: () =>
      (stopped ??= (async () => {
        await alsoListening?.close();
        await listener.close();
        // The deliveries under way finish while the table is still there.
        await served.stopDelivery();
        await dynalite?.stop();
      })()),
  };
}

interface Served {
  fetch: NodeFetch;
  appUrl: string | undefined;
  pages: LocalPages | undefined;
  outboxDir: string | undefined;
  /** Stops the in-process event deliverer (none without webhooks). */
  stopDelivery(): Promise<void>;
  deliversEvents: boolean;
}

/**
 * Imported here, not at the top: Powertools reads its env (POWERTOOLS_METRICS_DISABLED) when the
 * modules load. Dependencies are built once, now, so a bad setting fails the start, and the
 * table exists and the mail can be written before the first request.
 */
async function serveApi(env: Env, logs: 'text' | 'json', output: LocalLogOutput | undefined, ownUrl: string): Promise<Served> {
  const [{ readConfig }, { readCorsConfig }, { readEventDeliveryConfig }, wiring, { nodePlatform }, { ensureTable }, { createAccountMail }, { startHostEventDelivery }] = await Promise.all([
    import('../../config/read-config.js'),
    import('../../config/cors-config.js'),
    import('../../config/event-delivery-config.js'),
    import('../../wiring/index.js'),
    import('./node-platform.js'),
    import('../../storage/table.js'),
    import('../../mail/account-mail.js'),
    import('../host-event-delivery.js'),
  ]);
  const config = readConfig(env);
  const cors = readCorsConfig(env);
  const events = readEventDeliveryConfig(env);
  const local: LocalLog | undefined = logs === 'text' ? createLocalLog(output) : undefined;
  const apiLog: ApiLog = local?.api ?? (await import('../../observability/logger.js')).apiLog;
  // With webhooks, the account's events go out right after the write that recorded them (the
  // deliverer starts below, once the table exists; features/events/README.md, "How each host").
  // Set once the deliverer starts; a write before that is swept instead.
  const started: { delivery?: HostEventDelivery } = {};
  const afterEventAppend = events?.webhooks.length ? (accountId: string) => started.delivery?.afterAppend(accountId) : undefined;
  const base: Platform = local === undefined ? nodePlatform : { ...nodePlatform, warn: local.warn, audit: local.audit, mail: { log: local.mail } };
  const platform: Platform = afterEventAppend === undefined ? base : { ...base, afterEventAppend };
  // It serves the recovery routes: a missing mail setting, a broken template or an outbox it may
  // not write stops the start, not the first reset.
  const mail = createAccountMail(config.mail, { ...platform.mail, ...(local && { print: local.print }) });
  await mail.ready();
  const deps = await wiring.buildAuthDependencies(config, platform, { mail }, { mailAtStart: true });
  await ensureTable(platform.dynamoDb(config.storage), config.storage.table, { maxWaitSeconds: 30 });
  // The pages answer the links only where the links point: here, unless PASSLANE_APP_URL names another app.
  const pages = config.mail.appUrl === ownUrl ? createLocalPages(config.mail, config.federation?.providers.map((provider) => provider.name)) : undefined;
  // The operator API beside the public one only with PASSLANE_ADMIN_KEYS (features/operators).
  const { routes, services } = wiring.servedApi(config, deps);
  // Last, so nothing after it can fail the start with the deliverer running.
  const delivery = startHostEventDelivery(events, config.storage, platform, { info: (message, fields) => apiLog.info(message, fields), warn: (message, fields) => apiLog.warn(message, fields) });
  if (delivery !== undefined) started.delivery = delivery;
  return {
    fetch: nodeApiFetch(routes, services, { log: apiLog, cors, ...(pages && { before: pages.answer }), ...(local && { onRequest: local.request }) }),
    appUrl: config.mail.appUrl,
    pages,
    outboxDir: config.mail.transport === 'outbox' ? config.mail.outboxDir : undefined,
    stopDelivery: async () => delivery?.stop(),
    deliversEvents: delivery !== undefined,
  };
}

/**
 * The same server on the other loopback address (::1 beside 127.0.0.1 or 0.0.0.0, 127.0.0.1
 * beside ::1) and port, so `localhost` reaches it whichever address it resolves to first. Best
 * effort: a machine without IPv6, or that address's port taken, leaves the one listener.
 */
async function listenOnOtherLoopback(listener: NodeHost, host: string, fetch: NodeFetch): Promise<NodeHost | undefined> {
  const other = host === '::1' || host === '[::1]' ? '127.0.0.1' : host === '127.0.0.1' || host === '0.0.0.0' ? '::1' : undefined;
  if (other === undefined) return undefined;
  return listenOnNode(fetch, { port: listener.port, host: other }).catch(() => undefined);
}

/** A port or address the server cannot listen on, named by the variable that sets it. */
function listenError(error: unknown, variable: 'PORT' | 'DYNAMODB_PORT', host: string, port: number): unknown {
  switch (codeOf(error)) {
    case 'EADDRINUSE':
      return new ConfigError(variable, `${port}: ${host}:${port} is in use by another process (another npm start?); set ${variable} to a free port, or 0 for any`);
    case 'EACCES':
      return new ConfigError(variable, `${port}: this user may not listen on ${host}:${port} (ports below 1024 need root); set ${variable} to another port`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ConfigError('HOST', `${host} is not an address of this machine (127.0.0.1 for this machine only, 0.0.0.0 for every interface)`);
    default:
      return error;
  }
}

export interface Dynalite {
  endpoint: string;
  stop(): Promise<void>;
}
type DynaliteFactory = (options: { path: string; createTableMs: number; deleteTableMs: number; updateTableMs: number }) => Server;

/** dynalite is CommonJS without types; with `path` it keeps tables in LevelDB files there. `npm run offline` starts the same. */
export async function startDynalite(host: string, port: number, path: string): Promise<Dynalite> {
  const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await listen(server, port, host).catch((error: unknown) => {
    throw listenError(error, 'DYNAMODB_PORT', host, port);
  });
  const { port: actualPort } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
    // close() also closes the LevelDB store (flushing it); the SDK's keep-alive sockets would hold it open.
    stop: () =>
      new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((error) => (error ? fail(error) : done()));
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done();
    });
  });
}

// ---- CLI (npm start) ----

async function main(): Promise<void> {
  const server = await startLocalServer({ logs: readServerConfig(process.env).logFormat ?? 'text' });
  const mail =
    server.outboxDir === undefined
      ? []
      : [`  mail: ${server.outboxDir}/*.eml (each one's link is printed here too); links go to ${server.appUrl}`];
  const pages =
    server.pages === undefined
      ? server.appUrl === undefined
        ? []
        : [`  the mails link to your app, ${server.appUrl} (PASSLANE_APP_URL): its pages take the token and post it to this API`]
      : [
          `  pages for the mailed links: ${server.appUrl}${[server.pages.passwordReset, server.pages.emailVerification, server.pages.signIn, server.pages.deviceApproval, server.pages.factorUndo, server.pages.emailChange, server.pages.emailChangeUndo].join(', ')}`,
          `  passkeys of the account signed in on ${server.pages.signIn}: ${server.appUrl}${server.pages.passkeys}`,
        ];
  // One write, so a reader of stdout gets the whole banner at once.
  console.log(
    [
      `passlane listening on ${server.url}`,
      `  DynamoDB: ${server.dynamoDbEndpoint}   data: ${server.dataDir}`,
      `  OAuth issuer: ${server.issuer} (discovery: ${server.url}/.well-known/oauth-authorization-server)`,
      ...mail,
      ...pages,
      ...(server.deliversEvents ? ['  account events: delivered to PASSLANE_WEBHOOKS right after each change, and swept every PASSLANE_EVENT_SWEEP_S'] : []),
      `  try: curl -i -X POST ${server.url}/register -H 'content-type: application/json' \\`,
      `         -d '{"email":"ada@example.com","password":"correct horse battery staple"}'`,
      '  Ctrl-C to stop.',
    ].join('\n'),
  );
  stopOnSignals(() => server.stop());
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error('passlane local server failed to start:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
