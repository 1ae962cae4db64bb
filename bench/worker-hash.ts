/**
 * What one argon2id costs inside workerd (Miniflare), for the CPU budget in packages/server/src/runtimes/workers/README.md, and
 * what a whole login costs on the Worker against a local dynalite.
 *
 *   npm run bench:worker        (ROUNDS=n, default 21; ROUNDS=1 is the quick form the tests run)
 *
 * The Worker gets the bindings a deployment has (wrangler.toml's secrets: signing key, pepper,
 * fingerprint key), with the login limits lifted (bench/load/lifted-limits.ts), and they are read
 * by the Worker's own reader first, so a retired or malformed binding stops the bench with its
 * name. The Worker's console is kept: when a request fails, its error lines are printed with the
 * status, since workerd alone answers a bare 500.
 *
 * Timed from outside: workerd freezes the clock inside a request (Spectre mitigation), so
 * `performance.now()` there would read 0. A hash is synchronous WASM on one core, so on an idle
 * machine its wall time is its CPU time; an empty request's median is subtracted as overhead.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { buildWorker, WORKER_COMPATIBILITY_FLAGS } from '../packages/server/src/runtimes/workers/build-worker.js';
import { readWorkerConfig } from '../packages/server/src/runtimes/workers/worker-env.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { buildEdgeBundle } from '../test/support/build-edge-bundle.js';
import { startDynalite } from '../test/support/dynamodb-servers.js';
import { LIFTED_LOGIN_LIMITS } from './load/lifted-limits.js';
import { workerFailure, type WorkerLog } from './worker-failure.js';

const ROUNDS = roundsFrom(process.env.ROUNDS);
const PASSWORD = 'correct horse battery staple';
/** The deployed Worker's, so the bench runs what `npm run deploy:worker` uploads. */
const COMPATIBILITY_DATE = /^compatibility_date = "([\d-]+)"/m.exec(await readFile(new URL('../wrangler.toml', import.meta.url), 'utf8'))?.[1];
if (COMPATIBILITY_DATE === undefined) throw new Error('wrangler.toml has no compatibility_date');

function roundsFrom(text: string | undefined): number {
  if (text === undefined) return 21;
  const rounds = Number(text);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`ROUNDS must be a positive integer (got ${JSON.stringify(text)})`);
  return rounds;
}

/** 32 random bytes, base64: a fresh pepper or fingerprint key for this run only. */
const randomKey = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The Worker's console, newest last: what a failure is explained with. */
const workerLogs: WorkerLog[] = [];
const failure = (what: string, response: { status: number; text(): Promise<string> }) => workerFailure(what, response, workerLogs);

/** Median ms of `request`, after two discarded warm-up calls (WASM instantiation, JIT); every answer must be `expected`. */
async function timeIt(what: string, expected: number, request: () => Promise<Response | { status: number; text(): Promise<string> }>): Promise<number> {
  const times: number[] = [];
  for (let round = -2; round < ROUNDS; round++) {
    const start = performance.now();
    const response = await request();
    if (response.status !== expected) throw await failure(what, response);
    await response.text();
    if (round >= 0) times.push(performance.now() - start);
  }
  return median(times);
}

/** Every Worker started, disposed in the end also when a request failed (workerd would keep the process alive). */
const started: Miniflare[] = [];

function workerd(scriptPath: string, modulesRoot: string, bindings: Record<string, string> = {}): Miniflare {
  const miniflare = new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: WORKER_COMPATIBILITY_FLAGS,
    bindings,
    // Kept, not printed: a failure shows the last lines (the Worker logs no password, hash or raw email).
    handleStructuredLogs: ({ level, message }: { level: string; message: string }) => void workerLogs.push({ level, message }),
  });
  started.push(miniflare);
  return miniflare;
}

const outdir = await mkdtemp(join(tmpdir(), 'passlane-bench-worker-'));
const dynamo = await startDynalite();
try {
  // 1. One hash, on the plain edge entry (test/support/edge-worker-entry.ts).
  const hashDir = join(outdir, 'hash');
  const entry = fileURLToPath(new URL('../test/support/edge-worker-entry.ts', import.meta.url));
  const hashBundle = await buildEdgeBundle({ entry, outdir: hashDir });
  const hashWorker = workerd(hashBundle.scriptPath, hashDir);
  const hashRequest = () =>
    hashWorker.dispatchFetch('http://bench.test/hash', { method: 'POST', body: JSON.stringify({ password: PASSWORD }) });
  const empty = await timeIt('GET /none (hash Worker)', 404, () => hashWorker.dispatchFetch('http://bench.test/none'));
  const hash = await timeIt('POST /hash', 200, hashRequest);

  // 2. A whole login on the real Worker, as a client without a known device makes it: one
  // consistent read (account, failure counters, sessions), the verify, the session's write and
  // the source's count of good logins, one RS256 signature (the default key's, as keygen makes).
  const workerDir = join(outdir, 'worker');
  const bundle = await buildWorker({ outdir: workerDir });
  await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), 'bench', { maxWaitSeconds: 10 });
  // The secrets wrangler.toml asks for (fresh, for this run only), the login limits lifted.
  const bindings: Record<string, string> = {
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    PASSLANE_TABLE: 'bench',
    PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(await generateSigningKey()),
    PASSLANE_PEPPER_KEYS: `bench-1:${randomKey()}`,
    PASSLANE_FINGERPRINT_KEY: randomKey(),
    ...LIFTED_LOGIN_LIMITS,
  };
  // The Worker's own reader, here in Node: a retired or malformed binding fails now, by name.
  readWorkerConfig(bindings);
  const app = workerd(bundle.scriptPath, workerDir, bindings);
  const post = (path: string, body: unknown) =>
    app.dispatchFetch(`http://bench.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const registered = await post('/register', { email: 'bench@example.com', password: PASSWORD });
  if (registered.status !== 201) throw await failure('POST /register', registered);
  await registered.text();
  const login = await timeIt('POST /login', 200, () => post('/login', { email: 'bench@example.com', password: PASSWORD }));
  const notFound = await timeIt('GET /none', 404, () => app.dispatchFetch('http://bench.test/none'));

  console.log(`workerd, ${ROUNDS} rounds, medians (ms):`);
  console.log(`  empty request                 ${empty.toFixed(1)}`);
  console.log(`  argon2id m=19456 t=2 p=1      ${hash.toFixed(1)}  (hash alone: ${(hash - empty).toFixed(1)})`);
  console.log(`  login (dynalite on loopback)  ${login.toFixed(1)}  (minus empty request: ${(login - notFound).toFixed(1)})`);
} catch (error) {
  console.error(`bench:worker: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await Promise.all(started.map((miniflare) => miniflare.dispose()));
  await dynamo.stop();
  await rm(outdir, { recursive: true, force: true });
}
