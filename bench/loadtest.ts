/**
 * npm run loadtest: logins per second through the whole stack (HTTP, handler, DynamoDB, argon2),
 * against the local server started in this process (temp data dir, free ports, rate limits
 * raised), or any URL with --url (loopback only unless --allow-remote). Compared with the
 * hash-only ceiling the bench core measures for the server's parameters on this machine.
 *
 *   npm run loadtest -- [--quick] [--bursts 10,50] [--clients 1,2,4,8,16] [--rounds 3] [--max-requests 200]
 *                       [--max-seconds-per-level 5] [--max-seconds 120] [--url URL [--allow-remote]] [--out DIR]
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { textTable, ms, num } from '../packages/server/src/cli/bench/format.js';
import { parseNumberList, defaultSettings } from '../packages/server/src/cli/bench/grid.js';
import { withLiftedLoginLimits } from './load/lifted-limits.js';
import { isLoopbackUrl, runLoginLoad, type LoadLevelResult, type LoginLoadResult } from './load/login-load.js';
import { runBench } from '../packages/server/src/cli/bench/run-bench.js';
import type { BenchBackend } from '../packages/server/src/cli/bench/types.js';
import { DEFAULT_ARGON2_POLICY } from '../packages/passlane/src/policy.js';

export const LOADTEST_USAGE = `usage: npm run loadtest -- [--quick] [--bursts 10,50] [--burst-repeats 3] [--clients 1,2,4,8,16] [--rounds 3]
       [--max-requests N] [--max-seconds-per-level S] [--max-seconds S] [--ceiling-rounds N]
       [--url http://127.0.0.1:3000 [--allow-remote]] [--out DIR]`;

const OPTIONS = {
  quick: { type: 'boolean' },
  url: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  bursts: { type: 'string' },
  'burst-repeats': { type: 'string' },
  clients: { type: 'string' },
  rounds: { type: 'string' },
  'max-requests': { type: 'string' },
  'max-seconds-per-level': { type: 'string' },
  'max-seconds': { type: 'string' },
  'ceiling-rounds': { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface LoadTestReport {
  schema: 'passlane-loadtest/1';
  target: string;
  local: boolean;
  startedAt: string;
  load: LoginLoadResult;
  /** Hash-only figures for the server's parameters, measured in this process (local runs). */
  hashOnly?: { candidateId: string; cpuMsPerHash: number; medianMs: number; ceilingPerSecond: number };
}

const positive = (name: string, text: string | undefined, fallback: number): number => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0)) throw new Error(`--${name} must be a positive number`);
  return value;
};

async function postJson(url: string, path: string, body: unknown): Promise<Response> {
  // Not followed, like the load itself (login-load.ts): the loopback check covers --url only.
  return fetch(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), redirect: 'manual' });
}

export async function runLoadTestCommand(argv: string[], io: { stdout(text: string): void; stderr(text: string): void } = { stdout: console.log, stderr: console.error }): Promise<LoadTestReport | undefined> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false });
  if (values.help) {
    io.stdout(LOADTEST_USAGE);
    return undefined;
  }
  const quick = values.quick === true;
  if (values.url !== undefined && !isLoopbackUrl(values.url) && !values['allow-remote']) {
    throw new Error(`${values.url} is not a loopback address: pass --allow-remote if you mean to load someone's server (your own, with permission)`);
  }

  // Set before the server's modules load: Powertools reads its log level at import, and an
  // INFO line per login would swamp the terminal and cost CPU the measurement would count.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const backend: BenchBackend = process.env.PASSLANE_ARGON2_BACKEND === 'wasm' ? 'wasm' : 'native';
  let stop: (() => Promise<void>) | undefined;
  let dataDir: string | undefined;
  let url = values.url;
  try {
    if (url === undefined) {
      dataDir = await mkdtemp(join(tmpdir(), 'passlane-loadtest-'));
      const { startLocalServer } = await import('../packages/server/src/runtimes/node/local-server.js');
      const server = await startLocalServer({
        port: 0,
        dynamoDbPort: 0,
        dataDir,
        env: withLiftedLoginLimits({
          ...process.env,
          PASSLANE_TABLE: `passlane-loadtest-${randomUUID().slice(0, 8)}`,
          DYNAMODB_ENDPOINT: '',
        }),
      });
      stop = () => server.stop();
      url = server.url;
      io.stderr(`loadtest: local server on ${url} (data in ${dataDir})`);
    }

    // A throwaway account; its password never leaves this process except to the server.
    const email = `loadtest-${randomUUID()}@example.com`;
    const password = `lt-${randomUUID()}`;
    const registered = await postJson(url, '/register', { email, password });
    if (registered.status !== 201) throw new Error(`registering the test account failed: HTTP ${registered.status} ${await registered.text()}`);
    const warm = await postJson(url, '/login', { email, password });
    if (warm.status !== 200) throw new Error(`the first login failed: HTTP ${warm.status} ${await warm.text()}`);
    await warm.arrayBuffer();

    const load = await runLoginLoad({
      url,
      email,
      password,
      burstSizes: values.bursts ? parseNumberList('--bursts', values.bursts) : quick ? [10] : [10, 50],
      burstRepeats: positive('burst-repeats', values['burst-repeats'], quick ? 2 : 3),
      clients: values.clients ? parseNumberList('--clients', values.clients) : quick ? [1, 4, 16] : [1, 2, 4, 8, 16],
      // Sustained levels interleaved over rounds: on a shared machine, load drifts within a run.
      rounds: positive('rounds', values.rounds, quick ? 1 : 3),
      maxRequests: positive('max-requests', values['max-requests'], quick ? 60 : 400),
      maxSecondsPerLevel: positive('max-seconds-per-level', values['max-seconds-per-level'], quick ? 2 : 5),
      maxSeconds: positive('max-seconds', values['max-seconds'], quick ? 30 : 180),
      measureProcess: stop !== undefined,
      onLevel: (level) => io.stderr(`loadtest: ${level.kind} ${level.concurrency}: ${level.ok}/${level.requests} ok`),
      onRound: (round, rounds) => io.stderr(`loadtest: sustained clients, round ${round + 1} of ${rounds}`),
    });

    const report: LoadTestReport = { schema: 'passlane-loadtest/1', target: url, local: stop !== undefined, startedAt: new Date().toISOString(), load };
    if (stop) {
      // The hash-only ceiling for the server's parameters, on the same machine, same process.
      const settings = defaultSettings(true);
      const { memoryKiB, passes, lanes } = DEFAULT_ARGON2_POLICY;
      settings.grid = { backends: [backend], memoryKiB: [memoryKiB], passes: [passes], lanes: [lanes] };
      settings.rounds = positive('ceiling-rounds', values['ceiling-rounds'], 9);
      settings.burstRepeats = 0;
      settings.clients = [];
      const bench = await runBench(settings);
      const c = bench.candidates[0]!;
      report.hashOnly = { candidateId: c.id, cpuMsPerHash: c.single!.cpuMs.median, medianMs: c.single!.wallMs.median, ceilingPerSecond: c.ceilingPerSecond! };
    }
    io.stdout(formatLoadReport(report));
    const outDir = resolve(values.out ?? join('bench', 'results'));
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, 'loadtest.json');
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    io.stdout(`\nwrote ${file}`);
    return report;
  } finally {
    await stop?.();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

export function formatLoadReport(report: LoadTestReport): string {
  const statusText = (l: LoadLevelResult) =>
    Object.entries(l.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, count]) => `${status}:${count}`)
      .join(' ');
  const sustained = report.load.levels.filter((l) => l.kind === 'sustained');
  const bestLevel = sustained.reduce<LoadLevelResult | undefined>((top, l) => (top === undefined || l.loginsPerSecond > top.loginsPerSecond ? l : top), undefined);
  // Sustained levels against the best one: past the cores, throughput should hold, not fall.
  const vsBest = (l: LoadLevelResult) => (l.kind === 'sustained' && bestLevel && bestLevel.loginsPerSecond > 0 ? `${num((100 * l.loginsPerSecond) / bestLevel.loginsPerSecond)}%` : '');
  const header = ['level', 'requests', 'ok', 'logins/s', 'vs best', 'p50 ms', 'p95 ms', 'statuses', ...(report.local ? ['CPU ms/login', 'peak RSS MiB'] : [])];
  const rows = report.load.levels.map((l) => [
    l.kind === 'burst' ? `burst of ${l.concurrency}` : `${l.concurrency} clients`,
    String(l.requests),
    String(l.ok),
    num(l.loginsPerSecond, 1),
    vsBest(l),
    ms(l.latencyMs?.median),
    ms(l.latencyMs?.p95),
    statusText(l),
    ...(report.local ? [ms(l.cpuMsPerLogin), num(l.peakRssMiB)] : []),
  ]);
  const lines = [`login load test against ${report.target}`, '', textTable(header, rows)];
  if (report.load.skipped.length) lines.push('', `skipped (time bound): ${report.load.skipped.join(', ')}`);
  const most = sustained.reduce<LoadLevelResult | undefined>((top, l) => (top === undefined || l.concurrency > top.concurrency ? l : top), undefined);
  if (most && bestLevel && sustained.length > 1) {
    const which = most === bestLevel ? 'the best level' : `${vsBest(most)} of the best level (${bestLevel.concurrency} clients, ${num(bestLevel.loginsPerSecond, 1)} logins/s)`;
    lines.push('', `${most.concurrency} clients: ${num(most.loginsPerSecond, 1)} logins/s, ${which}`);
  }
  const h = report.hashOnly;
  if (h) {
    const best = Math.max(0, ...report.load.levels.filter((l) => l.kind === 'sustained').map((l) => l.loginsPerSecond));
    const cpu = report.load.levels.map((l) => l.cpuMsPerLogin).filter((x): x is number => x !== undefined);
    lines.push(
      '',
      `hash only (${h.candidateId}): ${ms(h.medianMs)} ms, ${ms(h.cpuMsPerHash)} CPU ms per hash, ceiling ${num(h.ceilingPerSecond)} hashes/s`,
      `best sustained: ${num(best, 1)} logins/s = ${num((100 * best) / h.ceilingPerSecond)}% of the hash-only ceiling` +
        (cpu.length ? `; CPU per login ${ms(Math.min(...cpu))}-${ms(Math.max(...cpu))} ms (server, DynamoDB emulator and this client share the process)` : ''),
    );
  }
  lines.push('429 = rate limited, 503 = hasher overloaded (bounded queue): both are the designed answers to overload.');
  return lines.join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runLoadTestCommand(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`loadtest: ${error instanceof Error ? error.message : String(error)}`);
    console.error(LOADTEST_USAGE);
    process.exitCode = 2;
  });
}
