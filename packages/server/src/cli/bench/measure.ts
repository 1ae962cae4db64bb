/**
 * The three ways a candidate is measured: single hashes interleaved across candidates, bursts
 * released together, and sustained closed-loop clients. Each loop is bounded by a count and a
 * deadline.
 */
import type { BenchHasher } from './bench-hashers.js';
import { cpuMsSince, nextMacrotask, type RssSampler } from './process-meters.js';
import type { Candidate } from './types.js';

export interface Sample {
  wallMs: number;
  cpuMs: number;
}

export type HasherFor = (candidate: Candidate) => BenchHasher;

/** One hash, alone: wall time and the process's CPU time (threadpool threads included). */
export async function measureOne(hasherFor: HasherFor, c: Candidate, sampler: RssSampler): Promise<Sample> {
  sampler.sample();
  const cpu = process.cpuUsage();
  const start = performance.now();
  await hasherFor(c).hash(c);
  const wallMs = performance.now() - start;
  const cpuMs = cpuMsSince(cpu);
  sampler.sample();
  return { wallMs, cpuMs };
}

/**
 * Rounds that each run every candidate once, in an order rotated by one per round, so slow drift
 * in machine load (and "who ran just before") spreads over all candidates alike.
 */
export async function interleavedRounds(
  hasherFor: HasherFor,
  candidates: Candidate[],
  options: { rounds: number; deadline: number; sampler: RssSampler; onRound?: (done: number) => void },
): Promise<{ samples: Map<string, Sample[]>; rounds: number }> {
  const samples = new Map(candidates.map((c) => [c.id, [] as Sample[]]));
  let round = 0;
  // Whole rounds only, and at least one, so every candidate has the same number of samples.
  while (round < options.rounds && (round === 0 || performance.now() < options.deadline)) {
    for (let k = 0; k < candidates.length; k++) {
      const c = candidates[(round + k) % candidates.length]!;
      samples.get(c.id)!.push(await measureOne(hasherFor, c, options.sampler));
    }
    round++;
    options.onRound?.(round);
  }
  return { samples, rounds: round };
}

/**
 * `size` hashes released together, each started in its own macrotask as requests arriving at
 * once would be; latency is measured from the release. (A synchronous WASM hash holds the event
 * loop, so the k-th request in a WASM burst waits for the k-1 before it: that is the point.)
 */
export async function burst(hasherFor: HasherFor, c: Candidate, size: number, sampler: RssSampler): Promise<{ latencies: number[]; cpuMs: number }> {
  const hasher = hasherFor(c);
  const cpu = process.cpuUsage();
  const release = performance.now();
  const latencies = await Promise.all(
    Array.from(
      { length: size },
      () =>
        new Promise<number>((resolve, reject) => {
          setImmediate(() => {
            hasher.hash(c).then(() => {
              sampler.sample();
              resolve(performance.now() - release);
            }, reject);
          });
        }),
    ),
  );
  return { latencies, cpuMs: cpuMsSince(cpu) };
}

/**
 * `clients` closed-loop clients, each hashing again as soon as its last hash returned, until
 * `maxHashes` have started or the deadline passes. Latency includes waiting for the event loop.
 * At least one hash runs, as rounds run at least once: a level started just before the deadline
 * would otherwise have no sample, and summarising it would throw away the whole run's results.
 */
export async function sustained(
  hasherFor: HasherFor,
  c: Candidate,
  options: { clients: number; maxHashes: number; deadline: number; sampler: RssSampler },
): Promise<{ latencies: number[]; seconds: number; cpuMs: number }> {
  const hasher = hasherFor(c);
  const latencies: number[] = [];
  let started = 0;
  const cpu = process.cpuUsage();
  const begin = performance.now();
  const client = async () => {
    while (started < options.maxHashes && (started === 0 || performance.now() < options.deadline)) {
      started++;
      const t0 = performance.now();
      await nextMacrotask();
      await hasher.hash(c);
      latencies.push(performance.now() - t0);
      options.sampler.sample();
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  return { latencies, seconds: (performance.now() - begin) / 1000, cpuMs: cpuMsSince(cpu) };
}
