/**
 * What one argon2id costs inside workerd (Miniflare), for the CPU budget in packages/server/src/runtimes/workers/README.md, and
 * what a whole login costs on the Worker against a local dynalite.
 *
 *   npx tsx bench/worker-hash.ts        (ROUNDS=n, default 21)
 *
 * Timed from outside: workerd freezes the clock inside a request (Spectre mitigation), so
 * `performance.now()` there would read 0. A hash is synchronous WASM on one core, so on an idle
 * machine its wall time is its CPU time; an empty request's median is subtracted as overhead.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { buildWorker } from '../packages/server/src/runtimes/workers/build-worker.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { buildEdgeBundle } from '../test/support/build-edge-bundle.js';
import { startDynalite } from '../test/support/dynamodb-servers.js';

const ROUNDS = Number(process.env.ROUNDS ?? 21);
const PASSWORD = 'correct horse battery staple';
const COMPATIBILITY_DATE = '2025-01-01';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median ms of `request`, after two discarded warm-up calls (WASM instantiation, JIT). */
async function timeIt(request: () => Promise<Response | { status: number; text(): Promise<string> }>): Promise<number> {
  const times: number[] = [];
  for (let round = -2; round < ROUNDS; round++) {
    const start = performance.now();
    const response = await request();
    await response.text();
    if (round >= 0) times.push(performance.now() - start);
  }
  return median(times);
}

function workerd(scriptPath: string, modulesRoot: string, bindings: Record<string, string> = {}): Miniflare {
  return new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: COMPATIBILITY_DATE,
    bindings,
    handleStructuredLogs: () => undefined,
  });
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
  const empty = await timeIt(() => hashWorker.dispatchFetch('http://bench.test/none'));
  const hash = await timeIt(hashRequest);
  await hashWorker.dispose();

  // 2. A whole login on the real Worker: 2 rate-limit writes, 1 read, 1 verify, 1 signature.
  const workerDir = join(outdir, 'worker');
  const bundle = await buildWorker({ outdir: workerDir });
  await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), 'bench', { maxWaitSeconds: 10 });
  const app = workerd(bundle.scriptPath, workerDir, {
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    PASSLANE_TABLE: 'bench',
    PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(await generateSigningKey('EdDSA')),
    PASSLANE_LOGIN_LIMIT_PER_ACCOUNT: '1000000',
    PASSLANE_LOGIN_LIMIT_PER_IP: '1000000',
  });
  const post = (path: string, body: unknown) =>
    app.dispatchFetch(`http://bench.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const registered = await post('/register', { email: 'bench@example.com', password: PASSWORD });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
  await registered.text();
  const login = await timeIt(() => post('/login', { email: 'bench@example.com', password: PASSWORD }));
  const notFound = await timeIt(() => app.dispatchFetch('http://bench.test/none'));
  await app.dispose();

  console.log(`workerd, ${ROUNDS} rounds, medians (ms):`);
  console.log(`  empty request                 ${empty.toFixed(1)}`);
  console.log(`  argon2id m=19456 t=2 p=1      ${hash.toFixed(1)}  (hash alone: ${(hash - empty).toFixed(1)})`);
  console.log(`  login (dynalite on loopback)  ${login.toFixed(1)}  (minus empty request: ${(login - notFound).toFixed(1)})`);
} finally {
  await dynamo.stop();
  await rm(outdir, { recursive: true, force: true });
}
