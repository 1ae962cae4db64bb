/**
 * CPU and memory meters for one process. process.cpuUsage() is process-wide: native hashes run
 * on libuv threadpool threads (and argon2 lanes on more threads), and their CPU time counts too.
 */
const MiB = 1024 * 1024;

/** CPU milliseconds (user + system) since `from`. */
export function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

export const rssMiB = (): number => process.memoryUsage.rss() / MiB;

/** Peak resident set size since the process started (getrusage maxrss), MiB. */
export const maxRssMiB = (): number => process.resourceUsage().maxRSS / 1024;

/**
 * Samples RSS on a timer and whenever asked. The timer cannot fire while a synchronous WASM hash
 * holds the event loop, so callers also sample around each hash.
 */
export class RssSampler {
  private overallMiB = 0;
  private windowMiB = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  start(intervalMs = 5): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    return this;
  }

  sample(): number {
    const now = rssMiB();
    if (now > this.windowMiB) this.windowMiB = now;
    if (now > this.overallMiB) this.overallMiB = now;
    return now;
  }

  /** Peak since the last call (or start); the next window starts at the current RSS. */
  takeWindowPeak(): number {
    const peak = Math.max(this.windowMiB, this.sample());
    this.windowMiB = rssMiB();
    return peak;
  }

  /** Peak since start. */
  get peak(): number {
    return this.overallMiB;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Yields to the event loop (a macrotask), as a new request arriving at a server would. */
export const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
