/**
 * Spaces writes evenly to at most `perSecond` across every caller sharing the pacer (all import
 * workers, all rehash segments), so a bulk job beside live traffic stays at a rate the operator
 * chose. Even spacing, no burst: on-demand tables adapt to steady rates, and throttling that
 * still happens is retried by the SDK client.
 */
export interface WritePacer {
  /** Resolves when the caller may write. */
  take(): Promise<void>;
}

export function createWritePacer(perSecond: number, clock: () => number = Date.now): WritePacer {
  if (!(perSecond > 0)) throw new RangeError('writes per second must be positive');
  if (perSecond === Infinity) return { take: async () => {} };
  const spacingMs = 1000 / perSecond;
  let nextSlot = 0;
  return {
    async take() {
      const now = clock();
      const slot = Math.max(now, nextSlot);
      nextSlot = slot + spacingMs;
      if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
    },
  };
}
