/**
 * What one container last read about a session: live (and whose) or ended. The Lambda
 * authorizer's one piece of state, kept per container so a burst of requests with the same
 * token costs one read, bounded in time (each entry's own deadline, never later than the token
 * that caused the read) and in size (the oldest entry goes first).
 */
export type SessionVerdict = { live: true; userId: string } | { live: false };

/** Entries kept per container: at ~200 bytes each, well under a megabyte. */
export const DEFAULT_VERDICT_CACHE_ENTRIES = 1000;

export class SessionVerdictCache {
  /** Insertion order is age order: the first key is the oldest entry. */
  private readonly entries = new Map<string, { verdict: SessionVerdict; untilMs: number }>();

  constructor(readonly options: { ttlSeconds: number; maxEntries?: number }) {}

  /** The verdict on `sessionId` while it is fresh at `nowMs`; a stale one is dropped. */
  get(sessionId: string, nowMs: number): SessionVerdict | undefined {
    const entry = this.entries.get(sessionId);
    if (entry === undefined) return undefined;
    if (nowMs < entry.untilMs) return entry.verdict;
    this.entries.delete(sessionId);
    return undefined;
  }

  /** Keeps `verdict` until the TTL from `nowMs` or `notAfterMs`, whichever is sooner (nothing when that is already past). */
  set(sessionId: string, verdict: SessionVerdict, nowMs: number, notAfterMs: number): void {
    const untilMs = Math.min(nowMs + this.options.ttlSeconds * 1000, notAfterMs);
    this.entries.delete(sessionId);
    if (untilMs <= nowMs) return;
    this.entries.set(sessionId, { verdict, untilMs });
    const maxEntries = this.options.maxEntries ?? DEFAULT_VERDICT_CACHE_ENTRIES;
    while (this.entries.size > maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
