/**
 * `npm start` for real: packages/server/src/runtimes/node/local-server.ts in a child process (embedded dynalite persisted in the
 * data dir), spoken to over HTTP only, its console captured. For the end-to-end tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const START_TIMEOUT_MS = 30_000;

export interface RunningServer {
  url: string;
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output: () => string;
  /** Sends SIGINT and resolves with the exit code (null if killed by a signal). */
  interrupt(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** For afterEach: a failed test must not leave a server behind. */
export function killServers(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** Like `npm start` (tsx packages/server/src/runtimes/node/local-server.ts), without npm in between so signals reach the server. */
export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--conditions=passlane-source', '--import', 'tsx', 'packages/server/src/runtimes/node/local-server.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      // Port 0: the OS picks free ports for the server and dynalite; the URL is read from stdout.
      PORT: '0',
      DYNAMODB_PORT: '0',
      DYNAMODB_ENDPOINT: '',
      PASSLANE_DATA_DIR: dataDir,
      PASSLANE_TABLE: 'passlane-e2e',
      NODE_NO_WARNINGS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (running.delete(child), resolve(code))));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), START_TIMEOUT_MS);
    const check = (): void => {
      // The banner ends with the Ctrl-C hint; wait for all of it.
      const match = /listening on (http:\/\/\S+)[\s\S]*Ctrl-C to stop/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    interrupt: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}
