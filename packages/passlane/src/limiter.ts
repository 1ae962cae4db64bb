import { HasherOverloadedError, InvalidOptionsError } from './errors.js';

export interface ConcurrencyOptions {
  /** Memory all hashes in flight may use together, KiB. K in flight = budget / m. Default 256 MiB. */
  memoryBudgetKiB: number;
  /**
   * Hashes in flight at once, whatever their memory. Unlimited in the core; the Node entry
   * (packages/passlane/src/index.ts) defaults it to the usable cores, since native hashes past that only fight
   * over them (SECURITY.md, "Bursts").
   */
  maxConcurrent: number;
  /** Hashes waiting for memory or a free slot; one more fails at once. Default 64. */
  maxQueue: number;
  /** How long a hash may wait before failing with HasherOverloadedError. Default 3000 ms. */
  queueTimeoutMs: number;
}

export const DEFAULT_CONCURRENCY: Readonly<ConcurrencyOptions> = Object.freeze({
  memoryBudgetKiB: 256 * 1024,
  maxConcurrent: Infinity,
  maxQueue: 64,
  queueTimeoutMs: 3000,
});

interface Waiter {
  weight: number;
  start(): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * A memory-weighted semaphore, also capped in tasks, with a bounded FIFO queue. Hand-written
 * because the usual promise pools (p-limit, p-queue) count tasks, not memory, and have no
 * bounded queue that rejects. A burst beyond capacity fails fast with a typed error (503
 * upstream), never OOM.
 */
export class MemoryLimiter {
  private inUse = 0;
  private running = 0;
  private readonly queue: Waiter[] = [];
  private readonly options: ConcurrencyOptions;

  constructor(options: Partial<ConcurrencyOptions> = {}) {
    this.options = { ...DEFAULT_CONCURRENCY, ...options };
    const { memoryBudgetKiB, maxConcurrent, maxQueue, queueTimeoutMs } = this.options;
    if (!(memoryBudgetKiB >= 8) || !(maxQueue >= 0) || !(queueTimeoutMs >= 0)) {
      throw new InvalidOptionsError('concurrency options must be non-negative (budget at least 8 KiB)');
    }
    if (!(maxConcurrent >= 1) || !(Number.isInteger(maxConcurrent) || maxConcurrent === Infinity)) {
      throw new InvalidOptionsError('concurrency.maxConcurrent must be a whole number, at least 1');
    }
  }

  get inFlightKiB(): number {
    return this.inUse;
  }

  /** Tasks running now. */
  get inFlight(): number {
    return this.running;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(memoryKiB: number, task: () => Promise<T>): Promise<T> {
    // A hash bigger than the whole budget still runs, alone, rather than never.
    const weight = Math.min(Math.max(memoryKiB, 1), this.options.memoryBudgetKiB);
    await this.acquire(weight);
    try {
      return await task();
    } finally {
      this.release(weight);
    }
  }

  private fits(weight: number): boolean {
    return this.running < this.options.maxConcurrent && this.inUse + weight <= this.options.memoryBudgetKiB;
  }

  private acquire(weight: number): Promise<void> {
    if (this.queue.length === 0 && this.fits(weight)) {
      this.inUse += weight;
      this.running++;
      return Promise.resolve();
    }
    const retryAfterSeconds = Math.max(1, Math.ceil(this.options.queueTimeoutMs / 1000));
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(new HasherOverloadedError('too many password hashes waiting', retryAfterSeconds));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        weight,
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.queue.splice(this.queue.indexOf(waiter), 1);
          reject(new HasherOverloadedError('timed out waiting to hash a password', retryAfterSeconds));
          // The head may have been the one blocking smaller waiters behind it.
          this.drain();
        }, this.options.queueTimeoutMs),
      };
      this.queue.push(waiter);
    });
  }

  private release(weight: number): void {
    this.inUse -= weight;
    this.running--;
    this.drain();
  }

  /** Strict FIFO: a large hash at the head is not starved by small ones behind it. */
  private drain(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0]!.weight)) {
      const next = this.queue.shift()!;
      this.inUse += next.weight;
      this.running++;
      next.start();
    }
  }
}
