import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createPasswordHasher, HasherOverloadedError } from '../packages/passlane/src/index.js';
import { MemoryLimiter } from '../packages/passlane/src/limiter.js';
import { hasherWithBackend, recordingBackend } from './support/recording-backend.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('MemoryLimiter', () => {
  it('runs at most budget / m tasks at once and starts the rest in order', async () => {
    const limiter = new MemoryLimiter({ memoryBudgetKiB: 100, maxQueue: 10, queueTimeoutMs: 5000 });
    const gates = Array.from({ length: 5 }, deferred);
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      limiter.run(40, async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.waiting).toBe(3);
    gates[1]!.resolve();
    await runs[1];
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual([0, 1, 2]);
    gates.forEach((gate) => gate.resolve());
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.inFlightKiB).toBe(0);
  });

  it('fails at once with a typed error when the queue is full', async () => {
    const limiter = new MemoryLimiter({ memoryBudgetKiB: 10, maxQueue: 1, queueTimeoutMs: 5000 });
    const gate = deferred();
    const first = limiter.run(10, () => gate.promise);
    const second = limiter.run(10, async () => 'ran');
    const error = await limiter.run(10, async () => 'never').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HasherOverloadedError);
    expect((error as HasherOverloadedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    gate.resolve();
    await first;
    expect(await second).toBe('ran');
  });

  it('fails a waiter after the queue timeout, and lets the next one through', async () => {
    const limiter = new MemoryLimiter({ memoryBudgetKiB: 10, maxQueue: 5, queueTimeoutMs: 30 });
    const gate = deferred();
    const first = limiter.run(10, () => gate.promise);
    await expect(limiter.run(10, async () => 'late')).rejects.toMatchObject({ code: 'ERR_HASHER_OVERLOADED' });
    expect(limiter.waiting).toBe(0);
    gate.resolve();
    await first;
    expect(await limiter.run(10, async () => 'after')).toBe('after');
  });

  it('starts a smaller waiter when the large one ahead of it times out', async () => {
    const limiter = new MemoryLimiter({ memoryBudgetKiB: 10, maxQueue: 5, queueTimeoutMs: 40 });
    const gate = deferred();
    const running = limiter.run(6, () => gate.promise);
    const large = limiter.run(10, async () => 'large'); // blocks the queue: 6 + 10 > 10
    await new Promise((r) => setTimeout(r, 20));
    const small = limiter.run(4, async () => 'small'); // fits, but waits behind `large` (FIFO)
    await expect(large).rejects.toMatchObject({ code: 'ERR_HASHER_OVERLOADED' });
    // Started when `large` left the head, well before its own deadline, while `running` still holds 6.
    expect(await small).toBe('small');
    gate.resolve();
    await running;
    expect(limiter.inFlightKiB).toBe(0);
  });

  it('gives memory back when a task fails', async () => {
    const limiter = new MemoryLimiter({ memoryBudgetKiB: 10, maxQueue: 5, queueTimeoutMs: 1000 });
    await expect(limiter.run(10, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(
      limiter.run(10, () => {
        throw new Error('sync boom');
      }),
    ).rejects.toThrow('sync boom');
    expect(limiter.inFlightKiB).toBe(0);
    expect(await limiter.run(10, async () => 'ok')).toBe('ok');
  });

  it('runs at most maxConcurrent tasks at once, however much memory is left, and queues the rest', async () => {
    const limiter = new MemoryLimiter({ memoryBudgetKiB: 1_000_000, maxConcurrent: 2, maxQueue: 2, queueTimeoutMs: 5000 });
    const gates = Array.from({ length: 4 }, deferred);
    const started: number[] = [];
    let peak = 0;
    const runs = gates.map((gate, i) =>
      limiter.run(10, async () => {
        started.push(i);
        peak = Math.max(peak, limiter.inFlight);
        await gate.promise;
        return i;
      }),
    );
    // Queue full (2 waiting): the next is refused at once, as a memory overflow is.
    const refused = await limiter.run(10, async () => 'never').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HasherOverloadedError);
    expect(refused).toMatchObject({ code: 'ERR_HASHER_OVERLOADED' });
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.waiting).toBe(2);
    gates[0]!.resolve();
    await runs[0];
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual([0, 1, 2]);
    expect(limiter.inFlight).toBe(2);
    gates.forEach((gate) => gate.resolve());
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
    expect(limiter.inFlight).toBe(0);
    expect(limiter.inFlightKiB).toBe(0);
  });

  it('times out a waiter held back by the task cap', async () => {
    const limiter = new MemoryLimiter({ memoryBudgetKiB: 1_000_000, maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 30 });
    const gate = deferred();
    const first = limiter.run(10, () => gate.promise);
    await expect(limiter.run(10, async () => 'late')).rejects.toMatchObject({ code: 'ERR_HASHER_OVERLOADED' });
    gate.resolve();
    await first;
    expect(await limiter.run(10, async () => 'after')).toBe('after');
  });

  it('refuses a cap below one or fractional', () => {
    for (const maxConcurrent of [0, -1, 1.5, Number.NaN]) {
      expect(() => new MemoryLimiter({ maxConcurrent })).toThrow(/maxConcurrent/);
    }
    expect(() => new MemoryLimiter({ maxConcurrent: Infinity })).not.toThrow();
  });

  it('runs a task larger than the whole budget alone instead of never', async () => {
    const limiter = new MemoryLimiter({ memoryBudgetKiB: 10, maxQueue: 5, queueTimeoutMs: 1000 });
    expect(await limiter.run(1_000_000, async () => 'big')).toBe('big');
  });
});

describe('hasher under a burst', () => {
  it('keeps argon2 runs within the memory budget and refuses the overflow with a typed error', async () => {
    const recorder = recordingBackend();
    let inFlight = 0;
    let peak = 0;
    const backend = {
      ...recorder.backend,
      async argon2(input: Parameters<typeof recorder.backend.argon2>[0]) {
        peak = Math.max(peak, ++inFlight);
        try {
          return await recorder.backend.argon2(input);
        } finally {
          inFlight--;
        }
      },
    };
    // Two OWASP hashes fit in the budget; four more may wait; the rest are refused.
    const hasher = hasherWithBackend(backend, { concurrency: { memoryBudgetKiB: 2 * 19456, maxQueue: 4, queueTimeoutMs: 10_000 } });
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => hasher.hash('correct horse battery staple')));
    expect(peak).toBe(2);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(6);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(4);
    for (const r of refused) expect(r.reason).toBeInstanceOf(HasherOverloadedError);
  });

  it('caps native hashes in flight at the usable cores by default (the Node entry)', async () => {
    // Memory allows them all and nothing may queue: exactly the hashes over the cap are refused.
    const cores = availableParallelism();
    const hasher = createPasswordHasher({
      backend: 'native',
      pepper: false,
      concurrency: { memoryBudgetKiB: 1024 * 1024, maxQueue: 0 },
    });
    const results = await Promise.allSettled(Array.from({ length: cores + 2 }, () => hasher.hash('correct horse battery staple')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(cores);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      expect(r.reason).toBeInstanceOf(HasherOverloadedError);
    }
    // An explicit cap wins over the default.
    const wide = createPasswordHasher({ backend: 'native', pepper: false, concurrency: { memoryBudgetKiB: 1024 * 1024, maxQueue: 0, maxConcurrent: cores + 2 } });
    const all = await Promise.allSettled(Array.from({ length: cores + 2 }, () => wide.hash('correct horse battery staple')));
    expect(all.every((r) => r.status === 'fulfilled')).toBe(true);
  });
});
