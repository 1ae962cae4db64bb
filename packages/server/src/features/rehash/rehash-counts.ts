/** What happened to one scanned account. */
export const REHASH_OUTCOMES = [
  'wrapped',
  'rotated',
  'up_to_date',
  /** Wrapped already: upgraded at the next good login, whatever its outer parameters. */
  'already_wrapped',
  /** Needs the password to improve (peppered with old parameters, or no pepper keys to rotate with). */
  'left_for_login',
  /** The hash changed between read and write (a login upgrade or password change won). */
  'skipped_changed',
  /** The stored value does not parse, or the item lacks its email or hash: reported by userId. */
  'unparseable',
  /** Parsed, but wrapping or rotating refused it (e.g. a sealed tag that does not authenticate). */
  'failed',
] as const;

export type RehashOutcome = (typeof REHASH_OUTCOMES)[number];

export type RehashCounts = { scanned: number } & Record<RehashOutcome, number>;

export function emptyRehashCounts(): RehashCounts {
  return Object.fromEntries([['scanned', 0], ...REHASH_OUTCOMES.map((outcome) => [outcome, 0])]) as RehashCounts;
}

export function addRehashCounts(total: RehashCounts, more: Readonly<RehashCounts>): RehashCounts {
  total.scanned += more.scanned;
  for (const outcome of REHASH_OUTCOMES) total[outcome] += more[outcome];
  return total;
}
