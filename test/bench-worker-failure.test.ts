/**
 * bench:worker explains a failed request (bench/worker-failure.ts): the real Worker bundle in
 * Miniflare, given every binding but the fingerprint key (as the bench once was), answers
 * register with a bare 500; the explanation carries the Worker's own error from its console.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerFailure, type WorkerLog } from '../bench/worker-failure.js';
import { generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { buildWorker, WORKER_COMPATIBILITY_FLAGS } from '../packages/server/src/runtimes/workers/build-worker.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';

let outdir: string;
let dynamo: RunningDynamoDb;
let worker: Miniflare;
const logs: WorkerLog[] = [];

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'passlane-bench-worker-failure-'));
  const [bundle, server, jwk] = await Promise.all([buildWorker({ outdir }), startDynalite(), generateSigningKey('EdDSA')]);
  dynamo = server;
  await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), 'bench', { maxWaitSeconds: 10 });
  worker = new Miniflare({
    modules: true,
    scriptPath: bundle.scriptPath,
    modulesRoot: outdir,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2025-01-01',
    compatibilityFlags: WORKER_COMPATIBILITY_FLAGS,
    bindings: { DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: 'bench', PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(jwk) },
    handleStructuredLogs: ({ level, message }: WorkerLog) => void logs.push({ level, message }),
  });
  await worker.ready;
});

afterAll(async () => {
  await worker?.dispose();
  await dynamo?.stop();
  await rm(outdir, { recursive: true, force: true });
});

describe('bench:worker on a failed request', () => {
  it("names the status, the code and the Worker's own error, not only 500", async () => {
    const answer = await worker.dispatchFetch('http://bench.test/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'correct horse battery staple' }),
    });
    expect(answer.status).toBe(500);
    const error = await workerFailure('POST /register', answer, logs);
    expect(error.message).toMatch(/^POST \/register answered 500/);
    expect(error.message).toMatch(/Worker log: ERROR .*\(\/register\): ConfigError: PASSLANE_FINGERPRINT_KEY is not set/);
    // Short: no stack trace, and nothing the request carried.
    expect(error.message).not.toMatch(/\n\s+at |correct horse|bench@example\.com/);
  });

  it('says so when the Worker logged nothing', async () => {
    const error = await workerFailure('GET /x', new Response('oops', { status: 502 }), []);
    expect(error.message).toBe('GET /x answered 502\n  (the Worker logged nothing)');
  });
});
