/**
 * `npm run offline [-- osls and serverless-offline options]`: serverless.yml as osls users run it
 * on their machine, with serverless-offline (13.10.1, the last release that runs on osls): every
 * route of the HTTP API and both authorizers, each function its packaged zip in a worker thread,
 * against a local DynamoDB, with local secrets. One command:
 *   1. the secrets a deployment reads from SSM, from the environment or generated once into the
 *      data directory (offline-secrets.ts);
 *   2. the zips for this machine's CPU, as `npm run package` builds them, into the service's
 *      .package/<arch>/ (what serverless.yml's functions point at);
 *   3. DynamoDB: DYNAMODB_ENDPOINT, else an embedded dynalite kept in <data dir>/dynalite-offline
 *      (npm start's keeps its own folder: one LevelDB store cannot be opened twice), with the table
 *      serverless.yml names (passlane-<stage>-users);
 *   4. `osls offline start`, with the issuer set to the local URL, the JWT authorizer's signature
 *      check off (serverless-offline cannot do it), and this process's environment handed to the
 *      functions under serverless.yml's own (--localEnvironment), the secrets and DYNAMODB_ENDPOINT
 *      with it. infra/offline-environment.mjs then puts each secret in place of its SSM parameter.
 * What is emulated and what is not: infra/README.md, "Running offline".
 *
 * Env: PORT (3000), HOST (127.0.0.1), LAMBDA_PORT (3002: serverless-offline's Lambda invoke API),
 * DYNAMODB_PORT (8000), DYNAMODB_ENDPOINT, PASSLANE_DATA_DIR (.data), and whatever the functions
 * should see that serverless.yml does not set. Settings serverless.yml carries are its params:
 * `npm run offline -- --param="loginLimitPerIp=20"`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../packages/server/src/config/config-error.js';
import { wholeNumber, type Env } from '../../packages/server/src/config/env.js';
import { localServerUrl, readServerConfig } from '../../packages/server/src/config/server-config.js';
import { startDynalite } from '../../packages/server/src/runtimes/node/local-server.js';
import { codeOf, makeDirectory } from '../../packages/server/src/shared/make-directory.js';
import { createDynamoDbClient } from '../../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../../packages/server/src/storage/table.js';
import { LAMBDA_ARCHITECTURES, NPM_CPU, type LambdaArchitecture } from '../packaging/architectures.js';
import { packageFunctions } from '../package-functions.js';
import { offlineSecrets } from './offline-secrets.js';
import { stopOnSignals } from '../../packages/server/src/runtimes/node/stop-on-signals.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
/** serverless-offline's own default for its Lambda invoke API. */
const DEFAULT_LAMBDA_PORT = 3002;
/** Packaging and osls's start take seconds; on two busy cores, tens of them. */
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 15_000;

export interface OfflineOptions {
  /** The service: serverless.yml and infra/; .package/<arch>/ is written there. Default: this repository. */
  serviceDir?: string;
  /**
   * PORT, HOST, LAMBDA_PORT, DYNAMODB_PORT, DYNAMODB_ENDPOINT and PASSLANE_DATA_DIR when the
   * options below do not say, and the functions' local environment. Default: process.env.
   */
  env?: Env;
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  lambdaPort?: number;
  dataDir?: string;
  dynamoDbEndpoint?: string;
  dynamoDbPort?: number;
  /** serverless.yml's params (`--param=name=value`; jwtIssuer defaults to `url`, passkeys to localhost), under those in `args`; arch is always this machine's. */
  params?: Readonly<Record<string, string>>;
  /** More arguments for osls and serverless-offline (`--stage local`, ...). */
  args?: readonly string[];
  /** serverless-offline's console, as it writes it. Default: this process's stdout and stderr. */
  output?: (chunk: string, stream: 'stdout' | 'stderr') => void;
}

export interface OfflineServer {
  /** The HTTP API, also the tokens' issuer unless the jwtIssuer param says otherwise. */
  url: string;
  /** serverless-offline's Lambda invoke API (`POST /2015-03-31/functions/<name>/invocations`). */
  lambdaUrl: string;
  dynamoDbEndpoint: string;
  table: string;
  stage: string;
  arch: LambdaArchitecture;
  dataDir: string;
  /** Settles when serverless-offline exits, stopped or not, with its exit code. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** serverless.yml's `custom.tableName` unless the tableName param says otherwise: `${self:service}-${sls:stage}-users`. */
export const offlineTableName = (stage: string): string => `passlane-${stage}-users`;

export async function startServerlessOffline(options: OfflineOptions = {}): Promise<OfflineServer> {
  const env = options.env ?? process.env;
  const serviceDir = resolve(options.serviceDir ?? root);
  const config = readServerConfig(env);
  const host = options.host ?? config.host;
  const dataDir = resolve(options.dataDir ?? config.dataDir);
  const { params: argParams, args } = splitParams(options.args ?? []);
  const stage = stageOf(args);
  const arch = hostArchitecture();
  try {
    await makeDirectory(fs, dataDir);
  } catch (error) {
    throw new ConfigError('PASSLANE_DATA_DIR', `${dataDir} cannot be created (${codeOf(error) ?? 'error'}): name a directory this user may write`);
  }

  // serverless-offline takes fixed ports, and the issuer must be known before it starts.
  const port = await freePort(host, options.port ?? config.port, 'PORT');
  const lambdaPort = await freePort(host, options.lambdaPort ?? wholeNumber(env, 'LAMBDA_PORT', { fallback: DEFAULT_LAMBDA_PORT, min: 0, max: 65_535 }), 'LAMBDA_PORT');
  const url = localServerUrl(host, port);
  // The arch is this machine's: the zips are built for it, and their native binaries must load here.
  // Passkeys on, as npm start has them: a page on http://localhost:<port> (an IP cannot be an RP ID).
  const webauthn = { webauthnRpId: 'localhost', webauthnOrigins: `http://localhost:${port}` };
  const params: Record<string, string> = { jwtIssuer: url, ...webauthn, ...options.params, ...argParams, arch };
  const secrets = await offlineSecrets(dataDir, env);
  await packageFunctions(arch, { zipDir: join(serviceDir, '.package', arch) });

  const external = options.dynamoDbEndpoint ?? config.dynamoDbEndpoint;
  const dynalite = external ? undefined : await startDynalite(host, options.dynamoDbPort ?? config.dynamoDbPort, join(dataDir, 'dynalite-offline'));
  const dynamoDbEndpoint = external ?? dynalite!.endpoint;
  const table = params.tableName ?? offlineTableName(stage);
  let child: ChildProcess;
  try {
    await ensureTable(createDynamoDbClient({ endpoint: dynamoDbEndpoint }), table, { maxWaitSeconds: 30 });
    child = spawnOffline(serviceDir, {
      params,
      args: ['--host', host, '--httpPort', String(port), '--lambdaPort', String(lambdaPort), ...args],
      env: { ...env, ...secrets, DYNAMODB_ENDPOINT: dynamoDbEndpoint },
    });
    await ready(child, options.output ?? writeToConsole);
  } catch (error) {
    await dynalite?.stop();
    throw error;
  }

  let stopped: Promise<void> | undefined;
  return {
    url,
    lambdaUrl: localServerUrl(host, lambdaPort),
    dynamoDbEndpoint,
    table,
    stage,
    arch,
    dataDir,
    exited: new Promise((done) => (child.exitCode !== null || child.signalCode !== null ? done(child.exitCode) : child.once('exit', (code) => done(code)))),
    stop: () =>
      (stopped ??= (async () => {
        await stopChild(child);
        await dynalite?.stop();
      })()),
  };
}

/** The Lambda architecture of this machine's CPU: the zips' native binaries must load here. */
export function hostArchitecture(): LambdaArchitecture {
  const arch = LAMBDA_ARCHITECTURES.find((candidate) => NPM_CPU[candidate] === process.arch);
  if (arch === undefined) throw new Error(`serverless-offline runs the zips built for this CPU, and Lambda has none for ${process.arch}`);
  return arch;
}

/** `--param=name=value` arguments apart from the rest, so a caller's param replaces ours instead of repeating it. */
function splitParams(argv: readonly string[]): { params: Record<string, string>; args: string[] } {
  const params: Record<string, string> = {};
  const args: string[] = [];
  for (const arg of argv) {
    const match = /^--param=([^=]+)=(.*)$/s.exec(arg);
    if (match) params[match[1]!] = match[2]!;
    else args.push(arg);
  }
  return { params, args };
}

/** `--stage x`, `--stage=x` or `-s x`; osls's default is dev. */
function stageOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('--stage=')) return arg.slice('--stage='.length);
    if (arg === '--stage' || arg === '-s') return args[i + 1] ?? 'dev';
  }
  return 'dev';
}

/** `port` if nothing listens there (a free one for 0), or a ConfigError naming the variable, as npm start's are. */
async function freePort(host: string, port: number, variable: string): Promise<number> {
  const server = createServer();
  try {
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(port, host, () => done());
    });
  } catch (error) {
    if (codeOf(error) === 'EADDRINUSE') {
      throw new ConfigError(variable, `${port}: ${host}:${port} is in use by another process (npm start, or another npm run offline?); set ${variable} to a free port, or 0 for any`);
    }
    throw new ConfigError(variable, `${port}: cannot listen on ${host}:${port} (${codeOf(error) ?? 'error'})`);
  }
  const { port: chosen } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return chosen;
}

function spawnOffline(serviceDir: string, { params, args, env }: { params: Record<string, string>; args: string[]; env: Env }): ChildProcess {
  const osls = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
  const paramArgs = Object.entries(params).map(([name, value]) => `--param=${name}=${value}`);
  return spawn(
    process.execPath,
    // --localEnvironment: the functions get this environment under serverless.yml's own (secrets,
    // DYNAMODB_ENDPOINT, settings serverless.yml does not carry). --ignoreJWTSignature: without it
    // serverless-offline 13 fails to start once a route names a JWT authorizer; with it, it checks
    // iss, aud, exp and scopes but not the signature (its own limitation).
    [osls, 'offline', 'start', ...paramArgs, '--localEnvironment', '--ignoreJWTSignature', '--noSponsor', ...args],
    {
      cwd: serviceDir,
      env: { ...env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** serverless-offline did not start: `summary` says how, the message adds the end of what it printed. */
export class OfflineStartError extends Error {
  constructor(
    readonly summary: string,
    printed: string,
  ) {
    super(`${summary}; it printed:\n${printed.slice(-4000)}`);
    this.name = 'OfflineStartError';
  }
}

/** Resolves when serverless-offline says "Server ready"; rejects, with what it printed, if it exits or takes too long. */
function ready(child: ChildProcess, output: NonNullable<OfflineOptions['output']>): Promise<void> {
  let printed = '';
  let isReady = false;
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new OfflineStartError(`serverless-offline was not ready within ${READY_TIMEOUT_MS / 1000} s`, printed));
    }, READY_TIMEOUT_MS);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      fail(new OfflineStartError(`serverless-offline exited (${code ?? 'killed'}) before it was ready`, printed));
    };
    // Everything it prints goes on to `output`, before and after it is ready.
    const forward = (stream: 'stdout' | 'stderr') => (chunk: string) => {
      output(chunk, stream);
      if (isReady) return;
      printed = `${printed}${chunk}`.slice(-64_000);
      if (/Server ready: http/.test(printed)) {
        isReady = true;
        clearTimeout(timer);
        child.off('exit', onExit);
        done();
      }
    };
    child.stdout!.setEncoding('utf8').on('data', forward('stdout'));
    child.stderr!.setEncoding('utf8').on('data', forward('stderr'));
    child.once('exit', onExit);
  });
}

const writeToConsole = (chunk: string, stream: 'stdout' | 'stderr'): void => void process[stream].write(chunk);

/** SIGTERM, which serverless-offline answers by stopping its servers and removing the unpacked zips; SIGKILL if it hangs. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

// ---- CLI (npm run offline) ----

async function main(argv: string[]): Promise<void> {
  const env = process.env;
  console.log(`packaging the functions for this machine (${hostArchitecture()}) and starting serverless-offline ...`);
  const server = await startServerlessOffline({ env, args: argv });
  // One write, so a reader of stdout gets the whole banner at once.
  console.log(
    [
      '',
      `passlane on serverless-offline: ${server.url} (serverless.yml's routes and authorizers, stage ${server.stage})`,
      `  functions: .package/${server.arch}/*.zip in worker threads; Lambda invoke API ${server.lambdaUrl}`,
      `  DynamoDB: ${server.dynamoDbEndpoint} (table ${server.table})   data: ${server.dataDir}`,
      '  secrets: the environment\'s, else the data directory\'s, in place of their SSM parameters',
      '  passlaneJwt checks iss, aud and exp but not the signature (serverless-offline\'s --ignoreJWTSignature)',
      `  try: curl -i -X POST ${server.url}/register -H 'content-type: application/json' \\`,
      `         -d '{"email":"ada@example.com","password":"correct horse battery staple"}'`,
      '  Ctrl-C to stop.',
    ].join('\n'),
  );
  stopOnSignals(() => server.stop());
  // It stops on its own too (a crash, or Ctrl-C reaching it first): then so does the rest.
  const code = await server.exited;
  await server.stop();
  if (process.exitCode === undefined) process.exitCode = code ?? 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    // What serverless-offline printed is on the console already.
    const reason = error instanceof OfflineStartError ? `${error.summary} (its messages are above)` : error instanceof Error ? error.message : error;
    console.error('npm run offline failed to start:', reason);
    process.exit(1);
  });
}
