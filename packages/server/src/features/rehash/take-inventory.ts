import { PasslaneError, type PasswordHasher } from 'passlane/common';
import type { AccountStore, FactorCounts } from '../../storage/account-store.js';
import { countEmailForms, type EmailForms } from './count-email-forms.js';
import { currentPepperKeyId } from './current-pepper-key.js';
import { RehashInputInvalidError } from './errors.js';
import { MAX_SEGMENTS } from './job-cursor.js';
import { planRehashAction, type RehashPlan } from './plan-rehash-action.js';

/** Where a record stands in the upgrade, from the job's point of view. */
export type UpgradeStatus =
  /** Current scheme, parameters and pepper key: nothing left to do. */
  | 'up_to_date'
  /** Memory-hard already (wrapped, or peppered with older parameters): upgraded at the next login. */
  | 'awaiting_login'
  /** The rehash job would wrap it. */
  | 'to_wrap'
  /** The rehash job would (re)seal it under the current pepper key. */
  | 'to_rotate'
  | 'unparseable';

export interface InventoryGroup {
  scheme: string;
  /** argon2 parameters (for wrapped records, the outer argon2id's); absent for other formats. */
  parameters?: string;
  pepperKeyId?: string;
  wrapped: boolean;
  /** An unsalted or salted single-round digest (MD5, SHA-1, SHA-2): crackable at GPU speed. */
  fastDigest: boolean;
  needsRehash: boolean;
  status: UpgradeStatus;
  count: number;
}

export interface Inventory {
  total: number;
  byStatus: Record<UpgradeStatus, number>;
  /** How many records need rehashing (hasher.needsRehash), wrapped ones included. */
  needsRehash: number;
  wrapped: number;
  /** Fast digests not wrapped yet: the rehash job's first pass wraps them. */
  fastDigests: number;
  /** One row per scheme, parameters and pepper key, largest first. */
  groups: InventoryGroup[];
  /** Unparseable records by error code. */
  unparseable: Record<string, number>;
  /** Accounts keyed by an email that is not in canonical form, and what each needs (count-email-forms.ts). */
  emails: EmailForms;
  /** Accounts with each second factor (features/mfa, features/passkeys), and the passkeys in all. */
  factors: FactorCounts;
  /** Accounts an operator disabled (`disabledAt` on the account item): counted in `total` and the groups too. */
  disabled: number;
}

export interface InventoryDependencies {
  hasher: Pick<PasswordHasher, 'describe' | 'needsRehash' | 'rotatePepper'>;
  users: Pick<AccountStore, 'scanAccounts' | 'getUserByEmail'>;
}

export interface InventoryOptions {
  segments?: number;
  pageSize?: number;
  onProgress?(scanned: number): void;
  /** Each stored hash that parses (`passlane inventory --timing` keeps one of each cost shape). */
  onRecord?(stored: string): void;
}

/**
 * Reads every account (parallel segmented Scan) and counts stored hashes by scheme, parameters,
 * wrapping and pepper key, with the step each one is waiting for. Parses only: no hashing, no
 * keys, no writes. Shows how far an upgrade has come. Also counts disabled accounts, accounts keyed by an email not
 * in canonical form (after the scan, one read of the canonical key for each of them), and, in the
 * same Scan, the accounts with each second factor (their factors items, never a sealed secret).
 */
export async function takeInventory(deps: InventoryDependencies, options: InventoryOptions = {}): Promise<Inventory> {
  const totalSegments = options.segments ?? 4;
  if (!Number.isSafeInteger(totalSegments) || totalSegments < 1 || totalSegments > MAX_SEGMENTS) {
    throw new RehashInputInvalidError(`segments must be an integer from 1 to ${MAX_SEGMENTS}`);
  }
  const pepperKeyId = await currentPepperKeyId(deps.hasher);
  const groups = new Map<string, InventoryGroup>();
  const emails = countEmailForms();
  const inventory: Omit<Inventory, 'emails'> = {
    factors: { totp: 0, passkeyAccounts: 0, passkeys: 0, recoveryCodes: 0 },
    total: 0,
    disabled: 0,
    byStatus: { up_to_date: 0, awaiting_login: 0, to_wrap: 0, to_rotate: 0, unparseable: 0 },
    needsRehash: 0,
    wrapped: 0,
    fastDigests: 0,
    groups: [],
    unparseable: {},
  };

  const count = (stored: string | undefined) => {
    inventory.total++;
    const group = stored === undefined ? { unparseable: 'ERR_STORAGE_RECORD_INVALID' } : describeRecord(deps.hasher, stored, pepperKeyId);
    if ('unparseable' in group) {
      inventory.byStatus.unparseable++;
      inventory.unparseable[group.unparseable] = (inventory.unparseable[group.unparseable] ?? 0) + 1;
      return;
    }
    inventory.byStatus[group.status]++;
    if (group.needsRehash) inventory.needsRehash++;
    if (group.wrapped) inventory.wrapped++;
    if (group.fastDigest) inventory.fastDigests++;
    const key = JSON.stringify([group.scheme, group.parameters, group.pepperKeyId, group.status]);
    const existing = groups.get(key);
    if (existing) existing.count++;
    else groups.set(key, { ...group, count: 1 });
    if (stored !== undefined) options.onRecord?.(stored);
  };

  await Promise.all(
    Array.from({ length: totalSegments }, async (_, segment) => {
      let startKey: string | undefined;
      do {
        const page = await deps.users.scanAccounts({ segment, totalSegments, startKey, limit: options.pageSize ?? 500, factors: true });
        for (const [name, count] of Object.entries(page.factors ?? {})) inventory.factors[name as keyof FactorCounts] += count;
        for (const item of page.items) {
          count(item.passwordHash);
          if (item.disabled === true) inventory.disabled++;
          emails.add(item);
        }
        options.onProgress?.(inventory.total);
        startKey = page.lastKey;
      } while (startKey !== undefined);
    }),
  );
  inventory.groups = [...groups.values()].sort((a, b) => b.count - a.count || a.scheme.localeCompare(b.scheme));
  return { ...inventory, emails: await emails.finish(deps.users) };
}

function describeRecord(
  hasher: InventoryDependencies['hasher'],
  stored: string,
  pepperKeyId: string | undefined,
): Omit<InventoryGroup, 'count'> | { unparseable: string } {
  try {
    const { scheme, parameters, pepperKeyId: keyId, fastDigest } = hasher.describe(stored);
    const wrapped = scheme.startsWith('wrapped_');
    return {
      scheme,
      // For wrapped records, describe() reports the outer argon2id's parameters.
      ...(parameters !== undefined && { parameters }),
      ...(keyId !== undefined && { pepperKeyId: keyId }),
      wrapped,
      fastDigest: fastDigest === true,
      needsRehash: hasher.needsRehash(stored),
      status: statusOf(planRehashAction(hasher, stored, pepperKeyId)),
    };
  } catch (error) {
    if (error instanceof PasslaneError && error.code.startsWith('ERR_HASH_')) return { unparseable: error.code };
    throw error;
  }
}

function statusOf(plan: RehashPlan): UpgradeStatus {
  if (plan.action === 'wrap') return 'to_wrap';
  if (plan.action === 'rotate') return 'to_rotate';
  return plan.reason === 'up_to_date' ? 'up_to_date' : 'awaiting_login';
}
