/**
 * A whole bench run: warm-ups, interleaved single-hash rounds, bursts at the peak concurrency,
 * the recommendation, then sustained load on the recommended candidates. Shared by the CLI
 * (`passlane bench`, which `npm run bench` runs) and the Lambda function (functions/bench.ts).
 */
import { meetsOwaspFloor } from 'passlane/common';
import { loadBenchHashers, type BenchHasher } from './bench-hashers.js';
import { describeEnvironment } from './environment.js';
import { buildCandidates, defaultSettings, validateSettings } from './grid.js';
import { burst, interleavedRounds, sustained, type HasherFor } from './measure.js';
import { maxRssMiB, RssSampler } from './process-meters.js';
import { OWASP_FLOOR_CONFIGURATION, recommend } from './recommend.js';
import { recommendationStability, speedFactors } from './recommendation-stability.js';
import { bootstrapP95Interval, summarize } from './statistics.js';
import type { BenchBackend, BenchResult, BenchSettings, Candidate, CandidateResult, EnvironmentInfo, SustainedResult } from './types.js';

export interface BenchProgress {
  phase: 'warm-up' | 'rounds' | 'bursts' | 'sustained' | 'done';
  done: number;
  total: number;
  label?: string;
}

export interface RunBenchOptions {
  onProgress?: (progress: BenchProgress) => void;
  /** Injected hashers (tests); by default the real native and WASM backends. */
  hashers?: BenchHasher[];
  /** Lambda's configured memory (from the invocation context), recorded in the environment. */
  lambdaMemorySizeMB?: number;
}

/** Hashes of one candidate that hold their memory at the same time when `concurrency` arrive. */
export function hashesInFlight(backend: BenchBackend, concurrency: number, env: Pick<EnvironmentInfo, 'uvThreadpoolSize'>): number {
  // WASM runs on the one JS thread: one at a time. Native runs on the libuv threadpool.
  return backend === 'wasm' ? 1 : Math.min(concurrency, env.uvThreadpoolSize);
}

/** Cores a backend can keep busy in one process. */
export function usableCores(c: Candidate, env: Pick<EnvironmentInfo, 'cores' | 'uvThreadpoolSize'>): number {
  return c.backend === 'wasm' ? 1 : Math.min(env.cores, env.uvThreadpoolSize * c.lanes);
}

export async function runBench(input: BenchSettings, options: RunBenchOptions = {}): Promise<BenchResult> {
  const settings = validateSettings(structuredClone(input));
  const startedAt = new Date();
  const t0 = performance.now();
  const deadline = t0 + settings.maxSeconds * 1000;
  // Phase shares of the time bound, so a slow grid still leaves time for bursts and sustained load.
  const roundsDeadline = t0 + settings.maxSeconds * 500;
  const burstsDeadline = t0 + settings.maxSeconds * 800;
  const progress = options.onProgress ?? (() => undefined);
  const notes: string[] = [];
  let truncated = false;

  const candidates = buildCandidates(settings.grid);
  const maxMemoryKiB = Math.max(...candidates.map((c) => c.memoryKiB));
  const sampler = new RssSampler().start();
  try {
    const hashers = options.hashers ?? (await loadBenchHashers(settings.grid.backends, maxMemoryKiB));
    const byBackend = new Map(hashers.map((h) => [h.backend, h]));
    const hasherFor: HasherFor = (c) => {
      const h = byBackend.get(c.backend);
      if (!h) throw new Error(`no hasher for backend ${c.backend}`);
      return h;
    };
    const environment = describeEnvironment(options.lambdaMemorySizeMB === undefined ? {} : { lambdaMemorySizeMB: options.lambdaMemorySizeMB });
    const baselineRssMiB = sampler.sample();

    // Warm-up: JIT tier-up, WASM memory growth, the threadpool's first allocations. Discarded.
    const warmTotal = settings.warmups * candidates.length;
    for (let w = 0; w < settings.warmups; w++) {
      for (const [i, c] of candidates.entries()) {
        await hasherFor(c).hash(c);
        progress({ phase: 'warm-up', done: w * candidates.length + i + 1, total: warmTotal, label: c.id });
      }
    }
    await crossCheckBackends(candidates, hasherFor);

    const { samples, rounds } = await interleavedRounds(hasherFor, candidates, {
      rounds: settings.rounds,
      deadline: roundsDeadline,
      sampler,
      onRound: (done) => progress({ phase: 'rounds', done, total: settings.rounds }),
    });
    if (rounds < settings.rounds) {
      truncated = true;
      notes.push(`time bound: ${rounds} of ${settings.rounds} rounds measured`);
    }

    const boot = { resamples: settings.bootstrapResamples, seed: settings.seed };
    const results: CandidateResult[] = candidates.map((c) => {
      const s = samples.get(c.id)!;
      const single = { wallMs: summarize(s.map((x) => x.wallMs), boot), cpuMs: summarize(s.map((x) => x.cpuMs), boot) };
      const inFlight = hashesInFlight(c.backend, settings.concurrency, environment);
      return {
        ...c,
        meetsOwaspFloor: meetsOwaspFloor(c),
        single,
        ceilingPerSecond: usableCores(c, environment) / Math.max(single.cpuMs.median / 1000, 1e-6),
        memoryNeedMiB: baselineRssMiB + (inFlight * c.memoryKiB) / 1024,
      };
    });

    // Bursts: only where a recommendation could use them (at or above the floor), plus any
    // candidate when the grid has none there (tiny test grids), so every run shows a burst.
    const burstTargets = results.some((r) => r.meetsOwaspFloor) ? results.filter((r) => r.meetsOwaspFloor) : results;
    // Per candidate, the blocks its p95 at the peak concurrency comes from: one per burst, or at
    // concurrency 1 without bursts one per single hash. The recommendation's stability resamples them.
    const p95Blocks = new Map<string, number[][]>();
    if (settings.concurrency === 1) for (const c of candidates) p95Blocks.set(c.id, samples.get(c.id)!.map((x) => [x.wallMs]));
    if (settings.burstRepeats > 0) {
      const cut = await measureBursts(hasherFor, burstTargets, p95Blocks, { settings, deadline: burstsDeadline, sampler, boot, progress, notes });
      truncated ||= cut;
    }

    // Single hashes already carry the machine's drift: only bursts get the rounds' speed factors.
    const speed = settings.burstRepeats > 0 ? speedFactors(candidates.map((c) => samples.get(c.id)!.map((x) => x.wallMs))) : [1];
    for (const r of results) {
      const bursts = p95Blocks.get(r.id);
      if (r.burst && bursts) r.burst.p95Ci95 = bootstrapP95Interval(bursts, { ...boot, factors: speed });
    }
    const recommendations = settings.grid.backends.map((backend) => {
      const input = { backend, candidates: results, budgetMs: settings.budgetMs, concurrency: settings.concurrency, memoryBudgetMiB: settings.memoryBudgetMiB };
      const stability = recommendationStability({ ...input, blocks: p95Blocks, speedFactors: speed, resamples: settings.bootstrapResamples, seed: settings.seed });
      return { ...recommend(input), stability };
    });

    const sustainedResults: SustainedResult[] = [];
    const targets = sustainedTargets(results, recommendations);
    const levels = targets.length * settings.clients.length;
    let level = 0;
    for (const c of targets) {
      for (const clients of settings.clients) {
        const remaining = deadline - performance.now();
        if (remaining <= 0) {
          truncated = true;
          notes.push(`time bound: sustained load skipped for ${c.id} at ${clients} clients`);
          continue;
        }
        sampler.takeWindowPeak();
        const run = await sustained(hasherFor, c, {
          clients,
          maxHashes: Math.max(settings.sustainedMaxHashes, clients),
          deadline: performance.now() + Math.min(settings.sustainedMaxSeconds * 1000, remaining),
          sampler,
        });
        const cpuMsPerHash = run.cpuMs / run.latencies.length;
        sustainedResults.push({
          candidateId: c.id,
          clients,
          completed: run.latencies.length,
          seconds: run.seconds,
          throughputPerSecond: run.latencies.length / run.seconds,
          wallMs: summarize(run.latencies, boot),
          cpuMsPerHash,
          ceilingPerSecond: usableCores(c, environment) / Math.max(cpuMsPerHash / 1000, 1e-6),
          peakRssMiB: sampler.takeWindowPeak(),
        });
        progress({ phase: 'sustained', done: ++level, total: levels, label: `${c.id} x${clients}` });
      }
    }
    progress({ phase: 'done', done: 1, total: 1 });

    // The bootstrap sees the spread inside this run only; these say when the next run may differ.
    const full = defaultSettings(false);
    if (settings.rounds < full.rounds || settings.burstRepeats < full.burstRepeats) {
      notes.push(
        `a short run (${settings.rounds} rounds, ${settings.burstRepeats} bursts per candidate; a full run has ${full.rounds} and ${full.burstRepeats}): ` +
          'its figures and recommendation can change from one run to the next; confirm a choice with a full run',
      );
    }
    if (environment.loadAverage1m > environment.cores / 2) {
      notes.push(
        `load average ${environment.loadAverage1m.toFixed(2)} at the start on ${environment.cores} cores: other work shared the CPUs, ` +
          'so the latencies are pessimistic and vary from run to run',
      );
    }
    if (environment.runtime === 'lambda' || environment.lambda) {
      notes.push('on Lambda each instance serves one request at a time: read the concurrency-1 figures for per-login latency');
    }
    return {
      schema: 'passlane-bench/1',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      durationSeconds: (performance.now() - t0) / 1000,
      environment,
      settings,
      memory: { baselineRssMiB, peakRssMiB: sampler.peak, maxRssMiB: maxRssMiB() },
      candidates: results,
      sustained: sustainedResults,
      recommendations,
      truncated,
      notes,
    };
  } finally {
    sampler.stop();
  }
}

/** Native and WASM must produce the same tag for the same parameters; a bench of a wrong hash is worthless. */
async function crossCheckBackends(candidates: Candidate[], hasherFor: HasherFor): Promise<void> {
  const native = candidates.find((c) => c.backend === 'native');
  const wasm = native && candidates.find((c) => c.backend === 'wasm' && c.memoryKiB === native.memoryKiB && c.passes === native.passes && c.lanes === native.lanes);
  if (!native || !wasm) return;
  const [a, b] = await Promise.all([hasherFor(native).hash(native), hasherFor(wasm).hash(wasm)]);
  if (a.length !== b.length || a.some((x, i) => x !== b[i])) throw new Error(`native and WASM disagree at ${native.id}`);
}

/**
 * Bursts at the peak concurrency. First one discarded burst per candidate, in grid order (the
 * first time N hashes of this size run at once the allocator maps fresh pages; the RSS peak of
 * that burst is the candidate's). Then the measured bursts in rounds, each running one burst per
 * candidate in an order rotated per round, as the single-hash rounds do: drift in the machine's
 * load lands in every candidate's burst-to-burst spread, where the bootstrap of the
 * recommendation's stability can see it, instead of making one candidate look slower than the next.
 */
async function measureBursts(
  hasherFor: HasherFor,
  targets: CandidateResult[],
  p95Blocks: Map<string, number[][]>,
  run: {
    settings: BenchSettings;
    deadline: number;
    sampler: RssSampler;
    boot: { resamples: number; seed: number };
    progress: (progress: BenchProgress) => void;
    notes: string[];
  },
): Promise<boolean> {
  const { settings, deadline, sampler, boot, progress, notes } = run;
  const size = settings.concurrency;
  const warmed: Array<{ c: CandidateResult; peakRssMiB: number }> = [];
  let cut = false;
  sampler.takeWindowPeak();
  for (const [i, c] of targets.entries()) {
    if (performance.now() > deadline && i > 0) {
      notes.push(`time bound: bursts measured for ${i} of ${targets.length} candidates`);
      cut = true;
      break;
    }
    await burst(hasherFor, c, size, sampler);
    warmed.push({ c, peakRssMiB: sampler.takeWindowPeak() });
  }
  const bursts = new Map(warmed.map(({ c }) => [c.id, { latencies: [] as number[][], cpuMs: 0 }]));
  const total = settings.burstRepeats * warmed.length;
  let round = 0;
  while (round < settings.burstRepeats && (round === 0 || performance.now() < deadline)) {
    for (let k = 0; k < warmed.length; k++) {
      const { c } = warmed[(round + k) % warmed.length]!;
      const b = await burst(hasherFor, c, size, sampler);
      const own = bursts.get(c.id)!;
      own.latencies.push(b.latencies);
      own.cpuMs += b.cpuMs;
      progress({ phase: 'bursts', done: round * warmed.length + k + 1, total, label: c.id });
    }
    round++;
  }
  if (round < settings.burstRepeats) {
    notes.push(`time bound: bursts measured in ${round} of ${settings.burstRepeats} rounds`);
    cut = true;
  }
  for (const { c, peakRssMiB } of warmed) {
    const own = bursts.get(c.id)!;
    const latencies = own.latencies.flat();
    p95Blocks.set(c.id, own.latencies);
    c.burst = {
      size,
      repeats: round,
      wallMs: summarize(latencies, boot),
      cpuMsPerHash: own.cpuMs / latencies.length,
      peakRssMiB,
    };
  }
  return cut;
}

/** Per backend: the recommended candidate, else the OWASP default if measured, else the first at the floor. */
function sustainedTargets(results: CandidateResult[], recommendations: ReturnType<typeof recommend>[]): Candidate[] {
  const out: Candidate[] = [];
  for (const rec of recommendations) {
    const own = results.filter((r) => r.backend === rec.backend);
    const floor = OWASP_FLOOR_CONFIGURATION;
    const pick =
      own.find((r) => r.id === rec.candidateId) ??
      own.find((r) => r.memoryKiB === floor.memoryKiB && r.passes === floor.passes && r.lanes === floor.lanes) ??
      own.find((r) => r.meetsOwaspFloor) ??
      own[0];
    if (pick) out.push(pick);
  }
  return out;
}
