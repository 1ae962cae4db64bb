/**
 * The bench end to end on a tiny grid (m of a few KiB, allowed here because the bench measures
 * the raw backends and never recommends below the floor): through the CLI entry and through the
 * Lambda handler. No timing assertions: shapes only.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runBenchCommand } from '../packages/server/src/cli/commands/bench.js';
import { handler } from '../functions/bench.js';
import { sustained } from '../packages/server/src/cli/bench/measure.js';
import { RssSampler } from '../packages/server/src/cli/bench/process-meters.js';
import type { BenchResult } from '../packages/server/src/cli/bench/types.js';
import { runNode } from './support/run-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

function expectBenchShape(result: BenchResult, candidates: number): void {
  expect(result.schema).toBe('passlane-bench/1');
  expect(result.environment).toMatchObject({ cores: expect.any(Number), nodeVersion: process.versions.node, arch: process.arch });
  expect(result.candidates).toHaveLength(candidates);
  for (const c of result.candidates) {
    expect(c.single!.wallMs).toMatchObject({ n: expect.any(Number), median: expect.any(Number), p95: expect.any(Number) });
    expect(c.single!.wallMs.medianCi95).toHaveLength(2);
    expect(c.meetsOwaspFloor).toBe(false);
  }
  expect(result.candidates.some((c) => c.burst)).toBe(true);
  expect(result.sustained.length).toBeGreaterThan(0);
  expect(result.memory.maxRssMiB).toBeGreaterThan(0);
  // Nothing in a tiny grid meets the floor: the answer is the floor, with a warning.
  for (const r of result.recommendations) expect(r).toMatchObject({ fits: false, params: { memoryKiB: 19456, passes: 2, lanes: 1 } });
  // Each recommendation rerun on resampled bursts and machine speeds (recommendation-stability.ts).
  for (const r of result.recommendations) expect(r.stability).toMatchObject({ resamples: result.settings.bootstrapResamples, outcomes: [{ candidateId: null }] });
  for (const c of result.candidates.filter((x) => x.burst)) expect(c.burst!.p95Ci95).toHaveLength(2);
}

describe('npm run bench (the CLI\'s bench command)', () => {
  it('writes JSON, Markdown and SVG for a tiny grid', async () => {
    const out = await mkdtemp(join(tmpdir(), 'passlane-bench-'));
    dirs.push(out);
    const args = ['--conditions=passlane-source', '--import', 'tsx', 'packages/server/src/cli/passlane.ts', 'bench', '--quick', '--backend', 'native,wasm', '--argon2-memory', '64,128', '--passes', '1', '--lanes', '1'];
    args.push('--rounds', '3', '--concurrency', '2', '--clients', '1,2', '--max-seconds', '20', '--out', out);
    const run = await runNode(args, { cwd: ROOT });
    expect(run.code).toBe(0);
    // The versions it ran: the core's, found from the workspace (not `passlane unknown`).
    expect(run.stdout).toMatch(/@node-rs\/argon2 \d+\.\d+\.\d+, passlane 0\.1\.0;/);
    expect(run.stdout).toMatch(/native m=64 t=1 p=1/);
    expect(run.stdout).toMatch(/WARNING \(native\)/);
    expect(run.stdout).toMatch(/note: a short run \(3 rounds, 2 bursts per candidate/);

    for (const name of ['bench.json', 'bench.md', 'bench.svg']) expect((await stat(join(out, name))).size).toBeGreaterThan(0);
    const result = JSON.parse(await readFile(join(out, 'bench.json'), 'utf8')) as BenchResult;
    expectBenchShape(result, 4);
    expect(result.settings).toMatchObject({ concurrency: 2, rounds: 3, clients: [1, 2] });
    const svg = await readFile(join(out, 'bench.svg'), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).not.toMatch(/<script|href=/);
    expect(await readFile(join(out, 'bench.md'), 'utf8')).toMatch(/!\[hash latency and throughput\]\(bench.svg\)/);
  });
});

describe('passlane bench\'s progress', () => {
  it('is one bar over the whole run with the time left, as passlane import draws it', async () => {
    const out = await mkdtemp(join(tmpdir(), 'passlane-bench-progress-'));
    dirs.push(out);
    const stdout = new PassThrough().resume();
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    let drawn = '';
    stderr.on('data', (chunk: Buffer) => (drawn += chunk.toString()));
    let now = 0;
    const args = ['--quick', '--backend', 'native', '--argon2-memory', '64,128', '--passes', '1', '--lanes', '1', '--rounds', '3', '--concurrency', '2', '--clients', '1', '--out', out];
    // Each look at the clock a second later: every update is due a redraw.
    expect(await runBenchCommand(args, { stdout, stderr, clock: () => (now += 1_000) })).toBe(0);
    const bars = drawn.split('\r\x1b[2K').filter((line) => line !== '');
    expect(bars.length).toBeGreaterThan(5);
    const percents = bars.map((bar) => Number(/^\[[#-]{24}\]\s+(\d+)% /.exec(bar)?.[1]));
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    for (const phase of ['rounds', 'bursts', 'sustained']) expect(bars.some((bar) => bar.includes(`% ${phase} `))).toBe(true);
    expect(bars.filter((bar) => /, ~\d+ (s|min) left$/.test(bar)).length).toBeGreaterThan(3);
  });
});

describe('bench Lambda handler (functions/bench.ts)', () => {
  it('runs a tiny grid and returns the CLI JSON shape, with Lambda defaults', async () => {
    const result = await handler(
      { grid: { backends: ['native', 'wasm'], memoryKiB: [64], passes: [1, 2], lanes: [1] }, quick: true, rounds: 3, clients: [1] },
      { memoryLimitInMB: '1024', getRemainingTimeInMillis: () => 60_000 },
    );
    expectBenchShape(result, 4);
    expect(result.settings).toMatchObject({ concurrency: 1, memoryBudgetMiB: 1024 });
    expect(result.settings.maxSeconds).toBeLessThanOrEqual(50);
    expect(result.environment.lambda?.memorySizeMB).toBe(1024);
    expect(result.environment.memoryLimitMiB).toBe(1024);
  });

  it('refuses a malformed event with a named field', async () => {
    await expect(handler({ grid: { memoryKiB: ['lots'] } } as never)).rejects.toThrow(/grid.memoryKiB must be an array of numbers/);
    await expect(handler({ rounds: 100_000 })).rejects.toThrow(/rounds must be an integer/);
    await expect(handler({ nonsense: 1 } as never)).rejects.toThrow(/unknown event field nonsense/);
  });
});

describe('sustained load', () => {
  it('measures at least one hash when its level starts at the deadline, so the run can summarise it', async () => {
    const candidate = { id: 'fake m=8 t=1 p=1', backend: 'native', memoryKiB: 8, passes: 1, lanes: 1 } as const;
    let hashes = 0;
    const hasher = { backend: 'native' as const, hash: async () => (hashes++, new Uint8Array(32)) };
    const sampler = new RssSampler();
    const run = await sustained(() => hasher, candidate, { clients: 2, maxHashes: 10, deadline: performance.now() - 1, sampler });
    expect(hashes).toBe(1);
    expect(run.latencies).toHaveLength(1);
  });
});
