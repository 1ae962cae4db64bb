/**
 * Drives POST /login over HTTP with bursts (N released together) and sustained closed-loop
 * clients, bounded in requests and seconds per level and overall. Reports logins per second,
 * latency, and every non-200 by status: 429 (rate limit) and 503 (hasher overloaded) are the
 * expected answers to overload, so they are counted, not thrown.
 */
import { RssSampler, cpuMsSince } from '../../packages/server/src/cli/bench/process-meters.js';
import { summarize, type Summary } from '../../packages/server/src/cli/bench/statistics.js';

export interface LoginLoadOptions {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  email: string;
  password: string;
  burstSizes: number[];
  burstRepeats: number;
  clients: number[];
  /** Per level. */
  maxRequests: number;
  maxSecondsPerLevel: number;
  /** The whole run; levels not started by then are skipped (and listed). */
  maxSeconds: number;
  /**
   * Sustained levels run in this many rounds, each a share of the level's requests and seconds,
   * in an order rotated per round, so drift in machine load hits every level alike. Default 1.
   */
  rounds?: number;
  requestTimeoutMs?: number;
  /** When the server runs in this process, CPU and RSS are measured too (they include the client). */
  measureProcess?: boolean;
  onLevel?: (level: LoadLevelResult) => void;
  /** Sustained levels are reported when all rounds are done; this says which round starts. */
  onRound?: (round: number, rounds: number) => void;
}

export interface LoadLevelResult {
  kind: 'burst' | 'sustained';
  /** Burst size, or concurrent clients. */
  concurrency: number;
  requests: number;
  ok: number;
  seconds: number;
  loginsPerSecond: number;
  /** All answered requests, whatever their status. */
  latencyMs?: Summary;
  /** e.g. { "200": 40, "429": 3, "503": 1, "network": 0 } */
  statuses: Record<string, number>;
  cpuMsPerLogin?: number;
  peakRssMiB?: number;
}

export interface LoginLoadResult {
  levels: LoadLevelResult[];
  skipped: string[];
  seconds: number;
}

async function loginOnce(options: LoginLoadOptions): Promise<{ status: string; ms: number }> {
  const start = performance.now();
  try {
    const response = await fetch(new URL('/login', options.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: options.email, password: options.password }),
      signal: AbortSignal.timeout(options.requestTimeoutMs ?? 30_000),
      // A redirect is counted by its status, never followed: following it would send the load
      // (and the password) past the loopback check to wherever the Location header points.
      redirect: 'manual',
    });
    await response.arrayBuffer(); // drain, so the connection is reused
    return { status: String(response.status), ms: performance.now() - start };
  } catch (error) {
    const name = error instanceof Error ? error.name : 'error';
    return { status: name === 'TimeoutError' ? 'timeout' : 'network', ms: performance.now() - start };
  }
}

function levelResult(
  kind: LoadLevelResult['kind'],
  concurrency: number,
  answers: Array<{ status: string; ms: number }>,
  seconds: number,
  cpuMs: number | undefined,
  peakRssMiB: number | undefined,
): LoadLevelResult {
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const ok = statuses['200'] ?? 0;
  const answered = answers.filter((a) => a.status !== 'network' && a.status !== 'timeout').map((a) => a.ms);
  return {
    kind,
    concurrency,
    requests: answers.length,
    ok,
    seconds,
    loginsPerSecond: ok / Math.max(seconds, 1e-9),
    ...(answered.length > 0 && { latencyMs: summarize(answered, { resamples: 500 }) }),
    statuses,
    ...(cpuMs !== undefined && ok > 0 && { cpuMsPerLogin: cpuMs / ok }),
    ...(peakRssMiB !== undefined && { peakRssMiB }),
  };
}

export async function runLoginLoad(options: LoginLoadOptions): Promise<LoginLoadResult> {
  const t0 = performance.now();
  const deadline = t0 + options.maxSeconds * 1000;
  const sampler = options.measureProcess ? new RssSampler().start(20) : undefined;
  const levels: LoadLevelResult[] = [];
  const skipped: string[] = [];
  const record = (level: LoadLevelResult) => {
    levels.push(level);
    options.onLevel?.(level);
  };
  try {
    for (const size of options.burstSizes) {
      if (performance.now() > deadline) {
        skipped.push(`burst of ${size}`);
        continue;
      }
      sampler?.takeWindowPeak();
      const cpu = process.cpuUsage();
      const start = performance.now();
      const answers: Array<{ status: string; ms: number }> = [];
      const repeats = Math.max(1, Math.min(options.burstRepeats, Math.floor(options.maxRequests / size) || 1));
      for (let r = 0; r < repeats && performance.now() < deadline; r++) {
        answers.push(...(await Promise.all(Array.from({ length: size }, () => loginOnce(options)))));
      }
      record(levelResult('burst', size, answers, (performance.now() - start) / 1000, sampler && cpuMsSince(cpu), sampler?.takeWindowPeak()));
    }
    const rounds = Math.max(1, Math.floor(options.rounds ?? 1));
    const sustained = options.clients.map((clients) => ({
      clients,
      answers: [] as Array<{ status: string; ms: number }>,
      started: 0,
      /** Each client makes at least one request. */
      budget: Math.max(options.maxRequests, clients),
      seconds: 0,
      cpuMs: 0,
      peakRssMiB: undefined as number | undefined,
      ran: false,
    }));
    for (let round = 0; round < rounds; round++) {
      if (sustained.length > 0 && performance.now() <= deadline) options.onRound?.(round, rounds);
      for (let i = 0; i < sustained.length; i++) {
        const level = sustained[(i + round) % sustained.length]!;
        if (performance.now() > deadline || level.started >= level.budget) continue;
        level.ran = true;
        sampler?.takeWindowPeak();
        const levelDeadline = Math.min(deadline, performance.now() + (options.maxSecondsPerLevel * 1000) / rounds);
        const roundBudget = Math.min(level.budget, level.started + Math.max(Math.ceil(level.budget / rounds), level.clients));
        const cpu = process.cpuUsage();
        const start = performance.now();
        const client = async () => {
          while (level.started < roundBudget && performance.now() < levelDeadline) {
            level.started++;
            level.answers.push(await loginOnce(options));
          }
        };
        await Promise.all(Array.from({ length: level.clients }, client));
        level.seconds += (performance.now() - start) / 1000;
        if (sampler) {
          level.cpuMs += cpuMsSince(cpu);
          level.peakRssMiB = Math.max(level.peakRssMiB ?? 0, sampler.takeWindowPeak());
        }
      }
    }
    for (const level of sustained) {
      if (!level.ran) skipped.push(`${level.clients} sustained clients`);
      else record(levelResult('sustained', level.clients, level.answers, level.seconds, sampler && level.cpuMs, level.peakRssMiB));
    }
  } finally {
    sampler?.stop();
  }
  return { levels, skipped, seconds: (performance.now() - t0) / 1000 };
}

/** Loopback only, unless the caller opted in: a load test against someone's server is an attack. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
