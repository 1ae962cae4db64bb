import { isPeppered, PasslaneError, type PasswordHasher, RAW_ARGON2_PREFIX } from 'passlane/common';
import type { NewUser } from '../../storage/account-store.js';
import { canonicalEmail } from '../../accounts/canonical-email.js';
import { ImportRowRejectedError } from './errors.js';

/** A row that passed every check; `userId` only when the file gave one. */
export interface ValidatedImportRow {
  email: string;
  passwordHash: string;
  userId?: string;
  createdAt?: Date;
}

// Printable ASCII without spaces: userIds end up in tokens, logs and the userId index.
const USER_ID = /^[\x21-\x7e]{1,128}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Checks one row before anything is written: the email in the canonical form logins key it by,
 * the hash through the hasher's own parser and bounds (no hashing), and the optional columns. Throws
 * ImportRowRejectedError (or the hasher's code) with a message that holds neither hash nor email.
 */
export function validateImportRow(hasher: Pick<PasswordHasher, 'describe'>, fields: Record<string, unknown>): ValidatedImportRow {
  let email: string;
  try {
    email = canonicalEmail(fields.email);
  } catch {
    throw new ImportRowRejectedError('ERR_IMPORT_EMAIL_INVALID', 'email is missing or not a valid address');
  }
  const passwordHash = storedFormOf(fields.hash);
  try {
    hasher.describe(passwordHash);
  } catch (error) {
    if (error instanceof PasslaneError && error.code.startsWith('ERR_HASH_')) {
      throw new ImportRowRejectedError(error.code as 'ERR_HASH_MALFORMED', error.message);
    }
    throw error;
  }
  const row: ValidatedImportRow = { email, passwordHash };
  const userId = fields.userId;
  if (userId !== undefined && userId !== null && userId !== '') {
    if (typeof userId !== 'string' || !USER_ID.test(userId)) {
      throw new ImportRowRejectedError('ERR_IMPORT_USER_ID_INVALID', 'userId must be 1 to 128 printable ASCII characters without spaces');
    }
    row.userId = userId;
  }
  const createdAt = fields.createdAt;
  if (createdAt !== undefined && createdAt !== null && createdAt !== '') {
    const date = typeof createdAt === 'string' && ISO_DATE.test(createdAt.trim()) ? new Date(createdAt.trim()) : undefined;
    if (!date || Number.isNaN(date.getTime())) {
      throw new ImportRowRejectedError('ERR_IMPORT_CREATED_AT_INVALID', 'createdAt must be an ISO 8601 date or date-time');
    }
    row.createdAt = date;
  }
  return row;
}

/**
 * The value to store. Plain `$argon2…` strings mean passlane's own hashes (NFKC passwords), so
 * argon2 from another system is stored as `{ARGON2}` + PHC, which verifies the raw UTF-8 bytes its
 * author hashed (see packages/passlane/SECURITY.md). Peppered values are refused: only the keys of the
 * system that sealed them could open them.
 */
function storedFormOf(hash: unknown): string {
  // No format has surrounding whitespace; exports often pad columns.
  const text = typeof hash === 'string' ? hash.trim() : '';
  if (text === '') throw new ImportRowRejectedError('ERR_IMPORT_HASH_MISSING', 'hash is missing or empty');
  if (isPeppered(text)) throw new ImportRowRejectedError('ERR_IMPORT_HASH_PEPPERED', 'peppered hashes cannot be imported');
  return text.startsWith('$argon2') ? `${RAW_ARGON2_PREFIX}${text}` : text;
}

/** The row as createUser takes it. */
export function newUserOf(row: ValidatedImportRow, newUserId: () => string, now: Date): NewUser {
  return { email: row.email, passwordHash: row.passwordHash, userId: row.userId ?? newUserId(), createdAt: row.createdAt ?? now };
}
