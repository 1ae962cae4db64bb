import { blocklistKey, hasKey, openBlocklist } from './blocklist-format.js';
import { foldForComparison } from './normalise.js';

/** The common-password list, opened once per container (see blocklist-format.ts for the form). */
export interface Blocklist {
  /** Whether the password, folded, is listed (or, with `falsePositiveRate`, collides with a listed one). */
  has(password: string): Promise<boolean>;
  /** Distinct keys held. */
  readonly size: number;
  /** The chance that a password not on the list is reported as listed: about 2^-riceBits. */
  readonly falsePositiveRate: number;
}

/** Opens the asset (header and block index); each lookup decodes one block of at most 1024 keys. */
export function blocklistFromBytes(bytes: Uint8Array): Blocklist {
  const list = openBlocklist(bytes);
  return {
    size: list.count,
    falsePositiveRate: list.count / list.range,
    async has(password) {
      return hasKey(list, await blocklistKey(foldForComparison(password), list.range));
    },
  };
}
