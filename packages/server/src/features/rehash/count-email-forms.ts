import type { AccountStore, ScannedAccount } from '../../storage/account-store.js';
import { StorageRecordInvalidError } from '../../storage/errors.js';
import { USER_KEY_PREFIX } from '../../storage/table.js';
import { canonicalEmail } from '../../accounts/canonical-email.js';

/**
 * What an account keyed by an email that is not in canonical form needs (packages/server/src/accounts/EMAILS.md):
 * `rekey`, moving to its canonical key, which is free; `collides`, a decision, since its canonical
 * key is another account's (or another such account's canonical key too); `refused`, a decision,
 * since canonicalEmail refuses the email (invisible, control or unassigned code points; not an
 * address). None of them can log in, reset or register under their key until migrated.
 */
export type EmailFormProblem = 'rekey' | 'collides' | 'refused';

/** Accounts by the form of the email that keys them. Counts and userIds only, never an email. */
export interface EmailForms {
  canonical: number;
  rekey: number;
  collides: number;
  refused: number;
  /** Every account that is not canonical, by userId (null for an item without one), for the migration (packages/server/src/features/rehash/README.md). */
  accounts: Array<{ userId: string | null; problem: EmailFormProblem }>;
}

/**
 * Counts scanned accounts by email form. `add` each scanned item, then `finish`: it reads the
 * canonical key of every account that is not canonical (a point read each: such accounts are
 * expected to be few, and a table-wide set of keys would not fit in memory for large tables).
 */
export function countEmailForms() {
  let canonical = 0;
  const refused: Array<string | null> = [];
  /** Canonical key -> the userIds of accounts keyed by another spelling of it. */
  const spellings = new Map<string, Array<string | null>>();

  return {
    add(item: ScannedAccount): void {
      const key = item.pk.slice(USER_KEY_PREFIX.length);
      let target: string;
      try {
        target = canonicalEmail(key);
      } catch {
        refused.push(item.userId ?? null);
        return;
      }
      if (target === key) canonical++;
      else if (spellings.has(target)) spellings.get(target)!.push(item.userId ?? null);
      else spellings.set(target, [item.userId ?? null]);
    },

    async finish(users: Pick<AccountStore, 'getUserByEmail'>): Promise<EmailForms> {
      const accounts: EmailForms['accounts'] = refused.map((userId) => ({ userId, problem: 'refused' }));
      for (const [target, userIds] of spellings) {
        const problem = userIds.length > 1 || (await isTaken(users, target)) ? 'collides' : 'rekey';
        for (const userId of userIds) accounts.push({ userId, problem });
      }
      const count = (problem: EmailFormProblem) => accounts.filter((account) => account.problem === problem).length;
      return { canonical, rekey: count('rekey'), collides: count('collides'), refused: count('refused'), accounts };
    },
  };
}

async function isTaken(users: Pick<AccountStore, 'getUserByEmail'>, email: string): Promise<boolean> {
  try {
    return (await users.getUserByEmail(email)) !== undefined;
  } catch (error) {
    // An item there that does not read as an account still holds the key.
    if (error instanceof StorageRecordInvalidError) return true;
    throw error;
  }
}
