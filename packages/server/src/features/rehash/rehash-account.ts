import { PasslaneError, type PasswordHasher } from 'passlane/common';
import { HashChangedError } from '../../storage/errors.js';
import { USER_KEY_PREFIX } from '../../storage/table.js';
import type { ScannedAccount, AccountStore } from '../../storage/account-store.js';
import type { RehashPass } from './job-cursor.js';
import { isFastDigestRecord, planRehashAction } from './plan-rehash-action.js';
import type { RehashOutcome } from './rehash-counts.js';

export interface RehashAccountContext {
  hasher: Pick<PasswordHasher, 'describe' | 'needsRehash' | 'wrap' | 'rotatePepper'>;
  users: Pick<AccountStore, 'replacePasswordHash'>;
  currentPepperKeyId: string | undefined;
  dryRun: boolean;
  /** Waits for the write rate; called only right before a write. */
  beforeWrite(): Promise<void>;
}

export interface RehashAccountResult {
  outcome: RehashOutcome;
  /** For unparseable and failed: the error code, to report with the userId. */
  code?: string;
}

/**
 * One account: plan from parsing alone, compute the new value without the password (wrap or
 * rotatePepper), then a compare-and-swap on exactly the value read, so a login upgrade or a
 * password change that landed meanwhile wins and this write is dropped (`skipped_changed`).
 * Storage outages are thrown: the job stops and resumes from its cursor.
 */
/**
 * Whether `pass` handles the account: each is counted in exactly one pass, fast digests (wrapped
 * or not) in the first, the rest (unparseable records included) in the second. Parses only.
 */
export function belongsToPass(hasher: RehashAccountContext['hasher'], account: ScannedAccount, pass: RehashPass): boolean {
  let fast = false;
  try {
    fast = account.passwordHash !== undefined && isFastDigestRecord(hasher, account.passwordHash);
  } catch (error) {
    if (!isStoredHashError(error)) throw error;
  }
  return fast === (pass === 'fast_digests');
}

export async function rehashAccount(context: RehashAccountContext, account: ScannedAccount): Promise<RehashAccountResult> {
  const { passwordHash: stored, email } = account;
  if (stored === undefined || email === undefined || account.pk !== USER_KEY_PREFIX + email) {
    return { outcome: 'unparseable', code: 'ERR_STORAGE_RECORD_INVALID' };
  }
  let plan;
  try {
    plan = planRehashAction(context.hasher, stored, context.currentPepperKeyId);
  } catch (error) {
    if (isStoredHashError(error)) return { outcome: 'unparseable', code: error.code };
    throw error;
  }
  if (plan.action === 'none') return { outcome: plan.reason };
  const outcome = plan.action === 'wrap' ? 'wrapped' : 'rotated';
  if (context.dryRun) return { outcome };

  let newHash: string;
  try {
    newHash = plan.action === 'wrap' ? await context.hasher.wrap(stored) : await context.hasher.rotatePepper(stored);
  } catch (error) {
    if (isStoredHashError(error) || (error instanceof PasslaneError && error.code === 'ERR_PEPPER_KEY')) {
      return { outcome: 'failed', code: error.code };
    }
    throw error;
  }
  await context.beforeWrite();
  try {
    await context.users.replacePasswordHash({ email, expectedHash: stored, newHash, reason: 'rehash' });
  } catch (error) {
    if (error instanceof HashChangedError) return { outcome: 'skipped_changed' };
    throw error;
  }
  return { outcome };
}

function isStoredHashError(error: unknown): error is PasslaneError {
  return error instanceof PasslaneError && error.code.startsWith('ERR_HASH_');
}
