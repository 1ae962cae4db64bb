/**
 * Where a login's CPU goes: the login `npm run bench:login` measures, under V8's sampling
 * profiler, beside the bare verify it is compared with.
 *
 *   npx tsx --conditions=passlane-source bench/login-profile.ts [--quick] [--rounds 6] [--batch 50] [--warmup 1000] [--interval 100] [--keep DIR]
 *
 * The same set-up as bench/login.ts (its bundles, built with source maps, the deployed Lambda
 * environment, dynalite in a process of its own, an account at its session cap presenting its
 * device token, `--warmup` of each first), then `--rounds` rounds of one profiled batch of logins
 * and one of bare verifies, each profile written to a file of its own; the profiles of each
 * kind are summed and summarised by bench/profile-summary.ts, per operation. The profiles are
 * removed unless `--keep DIR` (never commit them). The profiler samples the handler's main
 * thread only and costs some CPU of its own: the CPU medians printed beside the tables
 * (process.cpuUsage, all threads) are of the profiled batches. A measurement: exits 0 unless
 * set-up fails.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { LambdaArchitecture } from '../scripts/packaging/architectures.js';
import { BUNDLE_FILE } from '../scripts/packaging/lambda-functions.js';
import { median } from '../packages/server/src/cli/bench/statistics.js';
import { deployedLoginEnv, positiveOption } from './lambda-harness.js';
import { buildBundles, startDynalite, startWorker, type Child } from './login.js';
import { BENCH_WEBAUTHN, type WorkerKind } from './login-worker.js';
import { formatSummaries, markdownTable, readProfile, summarise, type ProfileSummary } from './profile-summary.js';

const USAGE = 'usage: npx tsx --conditions=passlane-source bench/login-profile.ts [--quick] [--rounds 6] [--batch 50] [--warmup 1000] [--interval 100] [--keep DIR]';

/** Sums profiles' summaries (the same operation, several batches). */
function add(into: ProfileSummary | undefined, next: ProfileSummary): ProfileSummary {
  if (into === undefined) return next;
  const sum = (a: Map<string, number>, b: Map<string, number>) => {
    for (const [key, ms] of b) a.set(key, (a.get(key) ?? 0) + ms);
    return a;
  };
  return { totalMs: into.totalMs + next.totalMs, idleMs: into.idleMs + next.idleMs, groups: sum(into.groups, next.groups), functions: sum(into.functions, next.functions) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      rounds: { type: 'string' },
      batch: { type: 'string' },
      warmup: { type: 'string' },
      interval: { type: 'string' },
      keep: { type: 'string' },
      top: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const quick = values.quick === true;
  const rounds = positiveOption('rounds', values.rounds, quick ? 2 : 6);
  const batch = positiveOption('batch', values.batch, quick ? 20 : 50);
  const warmup = positiveOption('warmup', values.warmup, quick ? 100 : 1000);
  const intervalUs = positiveOption('interval', values.interval, 100);
  const top = positiveOption('top', values.top, 25);
  const arch: LambdaArchitecture = process.arch === 'arm64' ? 'arm64' : 'x86_64';
  const loadAtStart = loadavg()[0] ?? 0;

  const buildDir = mkdtempSync(join(tmpdir(), 'passlane-login-profile-'));
  const profileDir = values.keep ?? join(buildDir, 'profiles');
  mkdirSync(profileDir, { recursive: true });
  const children: Child[] = [];
  try {
    console.error(`login-profile: bundling with source maps for ${arch}`);
    const dirs = await buildBundles(buildDir, arch, { sourcemap: true });
    const dynalite = await startDynalite();
    children.push(dynalite.child);
    const env = await deployedLoginEnv({
      dynamoDbEndpoint: dynalite.endpoint,
      table: 'passlane-login-profile',
      extra: { PASSLANE_WEBAUTHN_RP_ID: BENCH_WEBAUTHN.rpId, PASSLANE_WEBAUTHN_ORIGINS: BENCH_WEBAUTHN.origin },
    });
    const email = `bench-${randomUUID()}@example.com`;
    const password = `bench-${randomUUID()}`;
    const registrar = startWorker('register handler', dirs.register, env);
    children.push(registrar);
    await registrar.request({ op: 'init', handlerFile: join(dirs.register, BUNDLE_FILE) });
    if ((await registrar.request({ op: 'register', email, password })).status !== 201) throw new Error('registering the bench account failed');
    registrar.stop();

    const worker = startWorker('login handler', dirs.login, env);
    children.push(worker);
    await worker.request({ op: 'init', handlerFile: join(dirs.login, BUNDLE_FILE) });
    await worker.request({ op: 'prepare', email, password });
    await worker.request({ op: 'fill-sessions', email, password, role: 'login' });

    const kinds: Array<{ kind: WorkerKind; label: string }> = [
      { kind: 'login', label: 'login (200)' },
      { kind: 'verify', label: 'bare verify' },
    ];
    console.error(`login-profile: warm-up (${warmup} of each), then ${rounds} rounds x ${batch} of each under the profiler (every ${intervalUs} µs)`);
    for (const { kind } of kinds) {
      const reply = await worker.request({ op: 'batch', kind, n: warmup, expect: 200 });
      if (reply.unexpected !== undefined) throw new Error(`${kind}: expected 200, got ${reply.unexpected}`);
    }
    const summaries = new Map<WorkerKind, ProfileSummary>();
    const cpu = new Map<WorkerKind, number[]>(kinds.map(({ kind }) => [kind, []]));
    for (let round = 0; round < rounds; round++) {
      for (const { kind } of round % 2 === 0 ? kinds : [...kinds].reverse()) {
        const file = join(profileDir, `${kind}-${round}.cpuprofile`);
        const reply = await worker.request({ op: 'profile', kind, n: batch, expect: 200, file, intervalUs });
        if (reply.unexpected !== undefined) throw new Error(`${kind}: expected 200, got ${reply.unexpected}`);
        cpu.get(kind)!.push(...reply.cpuMs);
        summaries.set(kind, add(summaries.get(kind), summarise(readProfile(file))));
      }
    }

    const n = rounds * batch;
    const login = summaries.get('login')!;
    const verify = summaries.get('verify')!;
    const difference: ProfileSummary = {
      totalMs: login.totalMs - verify.totalMs,
      idleMs: login.idleMs - verify.idleMs,
      groups: new Map([...new Set([...login.groups.keys(), ...verify.groups.keys()])].map((group) => [group, (login.groups.get(group) ?? 0) - (verify.groups.get(group) ?? 0)])),
      functions: new Map(),
    };
    const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
    console.log(`login profile, bundled for ${arch}: node ${process.version}, ${model}, ${cpus().length} cores, load ${loadAtStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at the end`);
    console.log(`${warmup} of each first, then ${rounds} rounds x ${batch} of each profiled (sampling every ${intervalUs} µs), ${n} of each in the tables`);
    console.log('');
    console.log(
      markdownTable(
        ['profiled batches, CPU ms per operation (process.cpuUsage, all threads)', 'median'],
        kinds.map(({ kind, label }) => [label, median(cpu.get(kind)!).toFixed(2)]).concat([['login above the verify', (median(cpu.get('login')!) - median(cpu.get('verify')!)).toFixed(2)]]),
      ),
    );
    console.log('');
    console.log(
      formatSummaries(
        [
          { name: 'login', summary: login, per: n },
          { name: 'bare verify', summary: verify, per: n },
          { name: 'login - verify', summary: difference, per: n },
        ],
        top,
      ).split('\n\ntop ')[0],
    );
    console.log('');
    console.log(formatSummaries([{ name: 'login', summary: login, per: n }], top).split('\n\n').slice(1).join('\n\n'));
    if (values.keep !== undefined) console.error(`login-profile: profiles kept in ${profileDir} (do not commit them)`);
  } finally {
    for (const child of children) child.stop();
    rmSync(buildDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(`login-profile: ${error instanceof Error ? error.message : String(error)}`);
    console.error(USAGE);
    process.exitCode = 1;
  });
}
