/**
 * The shapes a bench run produces: the CLI's JSON file and the Lambda handler's response are the
 * same `BenchResult`, so `passlane bench --remote` can combine either.
 */
import type { Summary } from './statistics.js';

export type BenchBackend = 'native' | 'wasm';

export interface Argon2Params {
  /** m, KiB */
  memoryKiB: number;
  /** t */
  passes: number;
  /** p */
  lanes: number;
}

export interface Candidate extends Argon2Params {
  backend: BenchBackend;
  /** e.g. `native m=19456 t=2 p=1` */
  id: string;
}

export interface GridSpec {
  backends: BenchBackend[];
  memoryKiB: number[];
  passes: number[];
  lanes: number[];
}

export interface BenchSettings {
  grid: GridSpec;
  warmups: number;
  /** Measured rounds per candidate at most; fewer if maxSeconds runs out. */
  rounds: number;
  /** Hashes released together in each burst: the peak logins in flight the recommendation is for. */
  concurrency: number;
  burstRepeats: number;
  /** Sustained-load client counts. */
  clients: number[];
  sustainedMaxSeconds: number;
  sustainedMaxHashes: number;
  /** p95 latency budget at `concurrency` logins in flight, ms. */
  budgetMs: number;
  memoryBudgetMiB: number;
  /** Whole run, seconds: phases stop early (and say so) when it runs out. */
  maxSeconds: number;
  seed: number;
  bootstrapResamples: number;
}

export interface EnvironmentInfo {
  cpuModel: string;
  /** os.availableParallelism() */
  cores: number;
  totalMemoryMiB: number;
  /** cgroup v2 memory.max (or v1 limit) in MiB when readable and not "max". */
  cgroupMemoryLimitMiB?: number;
  /** The tightest known limit: Lambda memory size, else cgroup, else total. */
  memoryLimitMiB: number;
  runtime: string;
  nodeVersion: string;
  platform: string;
  /** process.arch: x64, arm64 */
  arch: string;
  /** Lambda's spelling of the architecture: x86_64 or arm64. */
  lambdaArchitecture: string;
  /** libuv threadpool size: how many native hashes run at once. */
  uvThreadpoolSize: number;
  /** os.loadavg()[0] when the run started: above the core count, other work shared the CPUs. */
  loadAverage1m: number;
  libraries: Record<string, string>;
  lambda?: { functionName?: string; memorySizeMB?: number; region?: string; executionEnv?: string };
}

export interface BurstResult {
  size: number;
  repeats: number;
  /** Each hash's latency from the burst's release. */
  wallMs: Summary;
  /**
   * Bootstrap 95% interval of `wallMs.p95`, the figure the budget is judged by: whole bursts
   * resampled, times the machine's speed across the run (absent in results from before it).
   */
  p95Ci95?: [number, number];
  cpuMsPerHash: number;
  /** RSS sampled during this candidate's bursts (allocators keep freed pages: an upper bound). */
  peakRssMiB: number;
}

export interface CandidateResult extends Candidate {
  meetsOwaspFloor: boolean;
  single?: { wallMs: Summary; cpuMs: Summary };
  burst?: BurstResult;
  /** Hashes per second the CPUs could sustain: usable cores / CPU-seconds per hash. */
  ceilingPerSecond?: number;
  /** Modelled peak memory at `concurrency` in flight: baseline RSS + hashes in flight x m. */
  memoryNeedMiB: number;
}

export interface SustainedResult {
  candidateId: string;
  clients: number;
  completed: number;
  seconds: number;
  throughputPerSecond: number;
  wallMs: Summary;
  cpuMsPerHash: number;
  ceilingPerSecond: number;
  peakRssMiB: number;
}

export interface Rejection {
  candidateId: string;
  reasons: string[];
}

/**
 * The recommendation rerun on bootstrap resamples of the latencies it was judged by
 * (recommendation-stability.ts): how much of the pick is the measurement's noise.
 */
export interface RecommendationStability {
  resamples: number;
  /** Share of resamples that make the same pick (when nothing fits: that nothing fits). */
  share: number;
  /** share >= STABLE_SHARE (0.95), from at least 2 bursts per candidate. */
  stable: boolean;
  /** The fewest bursts (or single hashes) a candidate's p95 was resampled from; below 2, stability cannot be judged. */
  fewestBlocks?: number;
  /** The slowest and fastest the machine ran in this run's rounds, against its median (speedFactors()). */
  speedRange?: [number, number];
  /** Every pick the resamples made, most frequent first; `null`: nothing fits (the OWASP fallback). */
  outcomes: Array<{ candidateId: string | null; share: number }>;
}

export interface Recommendation {
  backend: BenchBackend;
  /** False when nothing measured fits: then `params` is the OWASP floor configuration. */
  fits: boolean;
  params: Argon2Params;
  candidateId?: string;
  p95Ms?: number;
  medianMs?: number;
  memoryNeedMiB?: number;
  warning?: string;
  rejected: Rejection[];
  reasoning: string[];
  /** Absent from `recommend` alone and in results from before it; runBench always sets it. */
  stability?: RecommendationStability;
}

export interface BenchResult {
  schema: 'passlane-bench/1';
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  environment: EnvironmentInfo;
  settings: BenchSettings;
  memory: { baselineRssMiB: number; peakRssMiB: number; maxRssMiB: number };
  candidates: CandidateResult[];
  sustained: SustainedResult[];
  recommendations: Recommendation[];
  /** True if a time bound cut a phase short. */
  truncated: boolean;
  notes: string[];
}
