/**
 * Real DynamoDB-compatible servers for tests (no mocks): AWS's DynamoDB Local (a JVM child
 * process) and dynalite (embedded, in this process). Both are in-memory and listen on
 * 127.0.0.1; start each once per describe block and stop it in afterAll.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

export interface RunningDynamoDb {
  /** e.g. http://127.0.0.1:38211 */
  endpoint: string;
  stop(): Promise<void>;
}

export interface DynamoDbServer {
  name: string;
  start(): Promise<RunningDynamoDb>;
}

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const emulatorDir = join(repoRoot, 'node_modules', 'amplify-dynamodb-simulator', 'emulator');
const START_TIMEOUT_MS = 30_000;

export async function startDynamoDbLocal(): Promise<RunningDynamoDb> {
  const jar = join(emulatorDir, 'DynamoDBLocal.jar');
  if (!existsSync(jar)) {
    throw new Error(`DynamoDB Local jar not found at ${jar}; is amplify-dynamodb-simulator installed?`);
  }
  const port = await freePort();
  const child = spawn(
    process.env.JAVA ?? 'java',
    [
      // Startup flags for a short-lived test server on a 2-core CI box: C1 only (faster warm-up,
      // fewer compiler threads), a small serial-GC heap, class-data sharing.
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      '-Xms64m',
      '-Xmx256m',
      '-Xshare:auto',
      `-Djava.library.path=${join(emulatorDir, 'DynamoDBLocal_lib')}`,
      '-jar',
      jar,
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { cwd: emulatorDir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4_000);
  });

  // Never leave a JVM behind, even if the worker dies without running afterAll.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new Error('DynamoDB Local needs Java (17+) on PATH, or set JAVA to the java binary', { cause: error })
          : error,
      );
    });
    child.once('exit', (code, signal) => {
      reject(new Error(`DynamoDB Local exited early (code ${code}, signal ${signal}): ${stderr.trim()}`));
    });
  });
  exited.catch(() => undefined); // observed below; avoid an unhandled rejection after stop()

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    await killChild(child);
  };
  try {
    await Promise.race([waitUntilAnswering(endpoint), exited]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, stop };
}

interface DynaliteOptions {
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}
type DynaliteFactory = (options?: DynaliteOptions) => Server;

export async function startDynalite(): Promise<RunningDynamoDb> {
  // dynalite is CommonJS without types; it returns a plain http.Server backed by in-memory LevelDB.
  const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('dynalite has no TCP address');
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        // Drop the clients' keep-alive sockets so close() does not wait for them.
        (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export const dynamoDbServers: DynamoDbServer[] = [
  { name: 'DynamoDB Local', start: startDynamoDbLocal },
  { name: 'dynalite', start: startDynalite },
];

/** A port that was free a moment ago (the OS picks it; small race, fine for tests). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

async function waitUntilAnswering(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 500, requestTimeout: 2_000, throwOnRequestTimeout: true },
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    for (;;) {
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(`DynamoDB server at ${endpoint} did not answer ListTables within ${START_TIMEOUT_MS} ms`, {
            cause: error,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    client.destroy();
  }
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}
