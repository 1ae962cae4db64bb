/**
 * What the hasher's native path costs above raw @node-rs/argon2, and where: the same argon2id
 * (OWASP's m=19456 t=2 p=1) four ways in one process, interleaved, each operation's wall time,
 * user and system CPU and minor page faults, then each under V8's sampling profiler.
 *
 *   npx tsx --conditions=passlane-source bench/hash-profile.ts [--rounds 20] [--batch 10] [--interval 100] [--keep DIR]
 *
 * - raw hashRaw: `@node-rs/argon2`'s hashRaw with Buffers, as bench/hash-backends.ts calls it;
 * - backend.argon2: passlane's native backend alone (packages/passlane/src/backends/native.ts);
 * - hasher.hash: the whole public path without a pepper (NFKC, limiter, salt, PHC), as bench:hash;
 * - hasher.verify, peppered: what a login runs (the envelope opened with AES-GCM, the tag compared).
 *
 * Main thread and other threads' CPU are per batch, from Linux's per-thread counters
 * (bench/thread-cpu.ts). Rounds run one batch of each in an order rotated every round; a warm-up round is dropped. The
 * profiles (main thread only: argon2 itself runs on libuv's threads and shows as idle) are
 * summarised by bench/profile-summary.ts and removed unless `--keep DIR`. A measurement: exits 0.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { hashRaw, type Algorithm } from '@node-rs/argon2';
import { createNativeBackend } from '../packages/passlane/src/backends/native.js';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { median } from '../packages/server/src/cli/bench/statistics.js';
import { positiveOption } from './lambda-harness.js';
import { threadCpu, threadCpuSince } from './thread-cpu.js';
import { formatSummaries, markdownTable, readProfile, summarise } from './profile-summary.js';

const PARAMS = { memoryKiB: 19456, passes: 2, lanes: 1 };
const ARGON2ID = 2 as Algorithm; // a const enum, unreadable under verbatimModuleSyntax
const PASSWORD = 'correct horse battery staple';

interface Sample {
  wallMs: number;
  userMs: number;
  systemMs: number;
  minorFaults: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string' }, batch: { type: 'string' }, interval: { type: 'string' }, keep: { type: 'string' } } });
  const rounds = positiveOption('rounds', values.rounds, 20);
  const batch = positiveOption('batch', values.batch, 10);
  const intervalUs = positiveOption('interval', values.interval, 100);
  const loadAtStart = loadavg()[0] ?? 0;

  const backend = createNativeBackend();
  const plain = createPasswordHasher({ backend: 'native', pepper: false, argon2: PARAMS });
  const peppered = createPasswordHasher({ backend: 'native', pepper: { currentKeyId: 'k1', keys: { k1: randomBytes(32).toString('base64') } }, argon2: PARAMS });
  const stored = await peppered.hash(PASSWORD);
  const passwordBuffer = Buffer.from(PASSWORD);
  const operations: Array<[string, () => Promise<unknown>]> = [
    ['raw hashRaw (@node-rs/argon2)', () => hashRaw(passwordBuffer, { algorithm: ARGON2ID, memoryCost: PARAMS.memoryKiB, timeCost: PARAMS.passes, parallelism: PARAMS.lanes, outputLen: 32, salt: randomBytes(16) })],
    ['backend.argon2 (native backend)', () => backend.argon2({ algorithm: 'argon2id', version: 0x13, ...PARAMS, password: new TextEncoder().encode(PASSWORD), salt: randomBytes(16), tagLength: 32 })],
    ['hasher.hash (no pepper)', () => plain.hash(PASSWORD)],
    ['hasher.verify (peppered)', async () => {
      if (!(await peppered.verify(stored, PASSWORD)).ok) throw new Error('the peppered hash did not verify');
    }],
  ];
  const samples = new Map<string, Sample[]>(operations.map(([name]) => [name, []]));
  /** Per batch: main thread and other threads' CPU per operation (schedstat). */
  const threads = new Map<string, Array<{ mainMs: number; otherMs: number }>>(operations.map(([name]) => [name, []]));
  const once = async (operation: () => Promise<unknown>): Promise<Sample> => {
    const before = process.resourceUsage();
    const start = performance.now();
    await operation();
    const wallMs = performance.now() - start;
    const after = process.resourceUsage();
    return { wallMs, userMs: (after.userCPUTime - before.userCPUTime) / 1000, systemMs: (after.systemCPUTime - before.systemCPUTime) / 1000, minorFaults: after.minorPageFault - before.minorPageFault };
  };
  for (let round = -1; round < rounds; round++) {
    const order = operations.map((_, i) => operations[(i + Math.max(round, 0)) % operations.length]!);
    for (const [name, operation] of order) {
      const before = threadCpu();
      for (let i = 0; i < batch; i++) {
        const sample = await once(operation);
        if (round >= 0) samples.get(name)!.push(sample);
      }
      const used = threadCpuSince(before);
      if (round >= 0 && used !== undefined) threads.get(name)!.push({ mainMs: used.mainMs / batch, otherMs: used.otherMs / batch });
    }
  }

  // Each under the profiler, in turn.
  const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'passlane-hash-profile-'));
  mkdirSync(dir, { recursive: true });
  const named = [];
  try {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    const n = rounds * batch;
    for (const [name, operation] of operations) {
      await session.post('Profiler.start');
      for (let i = 0; i < n; i++) await operation();
      const { profile } = await session.post('Profiler.stop');
      const file = join(dir, `${name.split(' ')[0]!.replace(/[^a-z.]/gi, '')}-${named.length}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      named.push({ name, summary: summarise(readProfile(file)), per: n });
    }
    session.disconnect();
  } finally {
    if (values.keep === undefined) rmSync(dir, { recursive: true, force: true });
  }

  const perThread = (name: string): [string, string] => {
    const t = threads.get(name)!;
    return t.length === 0 ? ['-', '-'] : [median(t.map((x) => x.mainMs)).toFixed(3), median(t.map((x) => x.otherMs)).toFixed(2)];
  };
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const raw = median(samples.get(operations[0]![0])!.map((s) => s.wallMs));
  const rawCpu = median(samples.get(operations[0]![0])!.map((s) => s.userMs + s.systemMs));
  console.log(`argon2id m=${PARAMS.memoryKiB} t=${PARAMS.passes} p=${PARAMS.lanes}, native: node ${process.version}, ${model}, ${cpus().length} cores, load ${loadAtStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at the end`);
  console.log(`${rounds} rounds x ${batch} of each, rotated (a warm-up round dropped); medians per operation`);
  console.log('');
  console.log(
    markdownTable(
      ['operation', 'wall ms', 'x raw', 'CPU ms (user + system)', 'x raw', 'user ms', 'system ms', 'main thread CPU ms', 'other threads CPU ms', 'minor page faults'],
      operations.map(([name]) => {
        const s = samples.get(name)!;
        const wall = median(s.map((x) => x.wallMs));
        const cpu = median(s.map((x) => x.userMs + x.systemMs));
        return [name, wall.toFixed(2), `${(wall / raw).toFixed(3)}x`, cpu.toFixed(2), `${(cpu / rawCpu).toFixed(3)}x`, median(s.map((x) => x.userMs)).toFixed(2), median(s.map((x) => x.systemMs)).toFixed(2), ...perThread(name), String(median(s.map((x) => x.minorFaults)))];
      }),
    ),
  );
  console.log('');
  console.log(formatSummaries(named, 12).split('\n\ntop ')[0]);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(`hash-profile: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
