/**
 * The optional breach check against Have I Been Pwned's Pwned Passwords range API, by
 * k-anonymity: the password's SHA-1 is computed here, only its first 5 hex characters are sent
 * (`GET <url><prefix>`), and the answer (every known suffix under that prefix, with counts) is
 * searched here. `Add-Padding: true` asks for decoy suffixes with a count of 0, so the size of
 * the answer does not tell an observer of the encrypted traffic which prefix was asked. A
 * suffix counts as breached at `minCount` sightings or more (padding never does: its count is 0).
 *
 * The hash is of the counted form (normalise.ts: NFKC without invisible characters, controls and
 * marks with no base), as the blocklist compares, so `pass\u200Bword1` is asked about as
 * `password1`; not folded: the corpus is case-sensitive.
 * Answers are cached per prefix (a few dozen, minutes each): they are public data, unlike the
 * passwords, whose hashes are never kept. Reasons and the fail-open default: README.md here.
 */
import { toHex, utf8 } from 'passlane/encoding';
import { countedForm, normalisePassword } from './normalise.js';

export interface BreachCheckOptions {
  /** Ends with `/`; the 5-character prefix is appended. */
  url: string;
  timeoutMs: number;
  /** Sightings from which a password counts as breached (at least 1). */
  minCount: number;
  /** Injected in tests; the platform's `fetch` otherwise. */
  fetch?: typeof fetch;
  /** Range answers kept (default 32) and for how long (default 10 minutes). */
  cacheEntries?: number;
  cacheTtlMs?: number;
  now?: () => number;
}

/** `unavailable`: no answer in time, a network error or an unexpected status; the policy decides what that means. */
export type BreachResult = { status: 'breached'; count: number } | { status: 'not_found' } | { status: 'unavailable'; cause: unknown };

export interface BreachCheck {
  check(password: string): Promise<BreachResult>;
}

/** Far above a padded answer (~1,000 lines of ~40 bytes): a misconfigured URL cannot fill memory. */
const MAX_RESPONSE_CHARS = 512 * 1024;

export function createBreachCheck(options: BreachCheckOptions): BreachCheck {
  const { timeoutMs, minCount } = options;
  const url = options.url.endsWith('/') ? options.url : `${options.url}/`;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const cacheEntries = options.cacheEntries ?? 32;
  const cacheTtlMs = options.cacheTtlMs ?? 10 * 60 * 1000;
  const now = options.now ?? Date.now;
  // Insertion order is recency order: a hit is re-inserted, the oldest goes first.
  const cache = new Map<string, { expires: number; counts: Map<string, number> }>();

  async function rangeOf(prefix: string): Promise<Map<string, number>> {
    const cached = cache.get(prefix);
    if (cached !== undefined && cached.expires > now()) {
      cache.delete(prefix);
      cache.set(prefix, cached);
      return cached.counts;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      const response = await doFetch(`${url}${prefix}`, {
        headers: { 'Add-Padding': 'true', 'User-Agent': 'passlane' },
        signal: controller.signal,
      });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => {});
        throw new Error(`range API answered ${response.status}`);
      }
      const text = await response.text();
      if (text.length > MAX_RESPONSE_CHARS) throw new Error('range answer is implausibly large');
      const counts = parseRange(text);
      cache.delete(prefix);
      cache.set(prefix, { expires: now() + cacheTtlMs, counts });
      while (cache.size > cacheEntries) cache.delete(cache.keys().next().value as string);
      return counts;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async check(password) {
      const digest = toHex(new Uint8Array(await crypto.subtle.digest('SHA-1', utf8(countedForm(normalisePassword(password)))))).toUpperCase();
      let counts: Map<string, number>;
      try {
        counts = await rangeOf(digest.slice(0, 5));
      } catch (cause) {
        return { status: 'unavailable', cause };
      }
      const count = counts.get(digest.slice(5)) ?? 0;
      return count >= minCount ? { status: 'breached', count } : { status: 'not_found' };
    },
  };
}

/** `SUFFIX:COUNT` lines (CRLF), the suffix 35 hex characters; padding lines (count 0) are dropped. */
export function parseRange(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([0-9A-Fa-f]{35}):(\d+)\r?$/.exec(line.trim());
    if (match === null) continue;
    const count = Number(match[2]);
    if (count > 0) counts.set(match[1]!.toUpperCase(), count);
  }
  return counts;
}
