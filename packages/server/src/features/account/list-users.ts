import type { Actor } from '../../accounts/audit-events.js';
import { InvalidRequestError } from '../../accounts/errors.js';
import type { ListedUser } from '../../storage/account-store.js';
import { USER_KEY_PREFIX } from '../../storage/table.js';
import { base64url } from 'jose';
import type { AccountLifecycleDependencies } from './dependencies.js';

export type { ListedUser };

/** The most accounts one page may hold. */
export const MAX_LIST_LIMIT = 100;

/**
 * A page of accounts in the table's order (a Scan: no sort, eventually consistent), and the
 * cursor of the next page (absent at the end). The cursor is opaque to the caller: the last
 * account's key, encoded. With `actor`, audited (how many, never who).
 */
export async function listUsers(deps: AccountLifecycleDependencies, input: { cursor?: string; limit: number; actor?: Actor }): Promise<{ users: ListedUser[]; cursor?: string }> {
  if (!Number.isSafeInteger(input.limit) || input.limit < 1 || input.limit > MAX_LIST_LIMIT) throw new InvalidRequestError(`limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`, 'limit');
  const startKey = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  const page = await deps.users.listUsers({ limit: input.limit, ...(startKey !== undefined && { startKey }) });
  if (input.actor !== undefined) deps.audit({ type: 'auth.account_viewed', action: 'list', count: page.users.length, actor: input.actor });
  return { users: page.users, ...(page.lastKey !== undefined && { cursor: base64url.encode(page.lastKey) }) };
}

function decodeCursor(cursor: string): string {
  let key: string | undefined;
  try {
    key = new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(cursor));
  } catch {
    key = undefined;
  }
  if (key === undefined || !key.startsWith(USER_KEY_PREFIX)) throw new InvalidRequestError('cursor is not one this API answered', 'cursor');
  return key;
}
