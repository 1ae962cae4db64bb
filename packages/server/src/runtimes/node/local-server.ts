/**
 * `npm start`: the API on http://127.0.0.1:3000 through the Node host (packages/server/src/runtimes/node/node-server.ts), the
 * same app every host serves. Storage is an embedded dynalite persisted under the data
 * directory, or DYNAMODB_ENDPOINT when set.
 *
 * Env: PORT (3000), HOST (127.0.0.1), DYNAMODB_PORT (8000), DYNAMODB_ENDPOINT, PASSLANE_DATA_DIR
 * (.data), plus everything the API reads (PASSLANE_TABLE, PASSLANE_LOGIN_LIMIT_*, ...).
 */
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from '../../config/env.js';
import { readServerConfig } from '../../config/server-config.js';
import type { NodeHost } from './node-server.js';

export interface LocalServerOptions {
  /** Defaults to PORT, else 3000; 0 picks a free port. */
  port?: number;
  host?: string;
  /** Defaults to PASSLANE_DATA_DIR, else `.data`: the dynalite files and the JWT signing key. */
  dataDir?: string;
  /** Embedded dynalite's port: DYNAMODB_PORT, else 8000; 0 picks a free port. */
  dynamoDbPort?: number;
  /** Use this DynamoDB(-compatible) server instead of the embedded dynalite (DYNAMODB_ENDPOINT). */
  dynamoDbEndpoint?: string;
  /** Defaults to process.env. */
  env?: Env;
}

export interface LocalServer {
  url: string;
  dynamoDbEndpoint: string;
  dataDir: string;
  stop(): Promise<void>;
}

export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const env = options.env ?? process.env;
  const config = readServerConfig(env);
  const host = options.host ?? config.host;
  const port = options.port ?? config.port;
  const dataDir = resolve(options.dataDir ?? config.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });

  // EMF lines only mean something to CloudWatch; set before the handlers (and Metrics) load.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

  const external = options.dynamoDbEndpoint ?? config.dynamoDbEndpoint;
  const dynalite = external ? undefined : await startDynalite(host, options.dynamoDbPort ?? config.dynamoDbPort, join(dataDir, 'dynalite'));
  const dynamoDbEndpoint = external ?? dynalite!.endpoint;
  const handlerEnv: Env = {
    // A developer's server: discovery may name the address it was reached at (not in deployments).
    PASSLANE_DISCOVERY_TRUST_HOST: 'true',
    ...env,
    DYNAMODB_ENDPOINT: dynamoDbEndpoint,
    PASSLANE_DATA_DIR: dataDir,
  };

  let api: NodeHost;
  try {
    api = await serveApi(handlerEnv, port, host);
  } catch (error) {
    await dynalite?.stop();
    throw error;
  }

  let stopped: Promise<void> | undefined;
  return {
    url: api.url,
    dynamoDbEndpoint,
    dataDir,
    stop: () =>
      (stopped ??= (async () => {
        await api.close();
        await dynalite?.stop();
      })()),
  };
}

/**
 * Imported here, not at the top: Powertools reads its env (POWERTOOLS_METRICS_DISABLED) when the
 * modules load. Dependencies are built once, now, so a bad setting fails the start, and the
 * table exists before the first request.
 */
async function serveApi(env: Env, port: number, host: string): Promise<NodeHost> {
  const [{ API_ROUTES }, { serveOnNode }, { readConfig }, wiring, { nodePlatform }, { ensureTable }, { apiLog }] = await Promise.all([
    import('../../wiring/api-routes.js'),
    import('./node-server.js'),
    import('../../config/read-config.js'),
    import('../../wiring/index.js'),
    import('./node-platform.js'),
    import('../../storage/table.js'),
    import('../../observability/logger.js'),
  ]);
  const config = readConfig(env);
  // It serves the recovery routes: a missing mail setting stops the start, not the first reset.
  const deps = await wiring.buildAuthDependencies(config, nodePlatform, {}, { mailAtStart: true });
  await ensureTable(nodePlatform.dynamoDb(config.storage), config.storage.table, { maxWaitSeconds: 30 });
  return serveOnNode(API_ROUTES, wiring.servicesOf(deps), { port, host, log: apiLog });
}

interface Dynalite {
  endpoint: string;
  stop(): Promise<void>;
}
type DynaliteFactory = (options: { path: string; createTableMs: number; deleteTableMs: number; updateTableMs: number }) => Server;

/** dynalite is CommonJS without types; with `path` it keeps tables in LevelDB files there. */
async function startDynalite(host: string, port: number, path: string): Promise<Dynalite> {
  const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await listen(server, port, host);
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
  const server = await startLocalServer();
  // One write, so a reader of stdout gets the whole banner at once.
  console.log(
    [
      `passlane listening on ${server.url}`,
      `  DynamoDB: ${server.dynamoDbEndpoint}   data: ${server.dataDir}`,
      `  try: curl -i -X POST ${server.url}/register -H 'content-type: application/json' \\`,
      `         -d '{"email":"ada@example.com","password":"correct horse battery staple"}'`,
      '  Ctrl-C to stop.',
    ].join('\n'),
  );
  const shutdown = (signal: string): void => {
    console.log(`${signal} received, stopping`);
    server.stop().then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        console.error('stop failed:', error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error('passlane local server failed to start:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
