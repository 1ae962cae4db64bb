import type { PasswordHasher } from 'passlane/common';
import { AccountExistsError, StorageRecordInvalidError } from '../../storage/errors.js';
import type { AccountStore } from '../../storage/account-store.js';
import { createWritePacer } from '../../storage/write-pacer.js';
import { ImportAbortedError, ImportRowRejectedError, type ImportCounts } from './errors.js';

export type { ImportCounts };
import type { ImportRecord } from './read-import-file.js';
import type { ImportReject } from './rejects-file.js';
import { newUserOf, validateImportRow, type ValidatedImportRow } from './validate-import-row.js';

export interface ImportUsersDependencies {
  hasher: Pick<PasswordHasher, 'describe'>;
  users: Pick<AccountStore, 'getUserByEmail' | 'getUserById' | 'createUser'>;
  newUserId?: () => string;
  now: () => Date;
}

export interface ImportUsersOptions {
  /** Rows in flight at once (default 8). */
  concurrency?: number;
  /** Account writes per second across all workers (default 200). */
  maxWritesPerSecond?: number;
  onReject(reject: ImportReject): Promise<void> | void;
  /** Called after every row; throttle any rendering on the caller's side. */
  onProgress?(counts: Readonly<ImportCounts>): void;
  /** Stops reading new rows; rows in flight finish. */
  signal?: AbortSignal;
}

export const DEFAULT_IMPORT_CONCURRENCY = 8;
export const DEFAULT_IMPORT_WRITES_PER_SECOND = 200;

interface PendingRow {
  line: number;
  raw: string;
  row: ValidatedImportRow;
}

/**
 * Imports rows in file order of validation, writing with bounded concurrency and rate. Each
 * account is created with a conditional put, so an existing account is never overwritten, and
 * the same file imported twice gives the same counts with everything skipped the second time.
 * The first storage failure (after the SDK's retries) stops the import with ImportAbortedError;
 * running it again continues where it left off, because imported rows are then skipped.
 */
export async function importUsers(
  deps: ImportUsersDependencies,
  records: AsyncIterable<ImportRecord>,
  options: ImportUsersOptions,
): Promise<ImportCounts> {
  const concurrency = options.concurrency ?? DEFAULT_IMPORT_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
  const pacer = createWritePacer(options.maxWritesPerSecond ?? DEFAULT_IMPORT_WRITES_PER_SECOND);
  const newUserId = deps.newUserId ?? (() => crypto.randomUUID());
  const { now } = deps;
  const counts: ImportCounts = { rows: 0, imported: 0, skipped: 0, rejected: 0 };
  let aborted: ImportAbortedError | undefined;

  const reject = async (line: number, raw: string, error: ImportRowRejectedError) => {
    counts.rejected++;
    await options.onReject({ line, code: error.code, message: error.message, raw });
  };

  // Validation runs in file order in this one generator (the workers pull from it), so which of
  // two rows with the same email wins never depends on timing: the first one does.
  const firstLineOfEmail = new Map<string, number>();
  const firstLineOfUserId = new Map<string, number>();
  async function* validRows(): AsyncGenerator<PendingRow> {
    for await (const record of records) {
      if (aborted || options.signal?.aborted) return;
      counts.rows++;
      try {
        if (record.rejected) throw record.rejected;
        const row = validateImportRow(deps.hasher, record.fields ?? {});
        const sameEmail = firstLineOfEmail.get(row.email);
        if (sameEmail !== undefined) throw new ImportRowRejectedError('ERR_IMPORT_DUPLICATE_EMAIL', `same email as line ${sameEmail}`);
        const sameUserId = row.userId === undefined ? undefined : firstLineOfUserId.get(row.userId);
        if (sameUserId !== undefined) throw new ImportRowRejectedError('ERR_IMPORT_DUPLICATE_USER_ID', `same userId as line ${sameUserId}`);
        firstLineOfEmail.set(row.email, record.line);
        if (row.userId !== undefined) firstLineOfUserId.set(row.userId, record.line);
        yield { line: record.line, raw: record.raw, row };
      } catch (error) {
        if (!(error instanceof ImportRowRejectedError)) throw error;
        await reject(record.line, record.raw, error);
        options.onProgress?.(counts);
      }
    }
  }

  async function importRow({ line, raw, row }: PendingRow): Promise<void> {
    // Read first: a re-run then costs reads only, and an existing account is reported as
    // skipped even when the file gave the userId it already has.
    if (await exists(row.email)) {
      counts.skipped++;
      return;
    }
    if (row.userId !== undefined && (await deps.users.getUserById(row.userId))) {
      await reject(line, raw, new ImportRowRejectedError('ERR_IMPORT_USER_ID_TAKEN', 'another account already has this userId'));
      return;
    }
    await pacer.take();
    try {
      await deps.users.createUser(newUserOf(row, newUserId, now()));
      counts.imported++;
    } catch (error) {
      // Registered (or imported by a parallel run) between our read and our write.
      if (!(error instanceof AccountExistsError)) throw error;
      counts.skipped++;
    }
  }

  async function exists(email: string): Promise<boolean> {
    try {
      return (await deps.users.getUserByEmail(email)) !== undefined;
    } catch (error) {
      // A corrupt item is still an account with that email.
      if (error instanceof StorageRecordInvalidError) return true;
      throw error;
    }
  }

  const rows = validRows();
  let readFailure: { error: unknown } | undefined;
  const worker = async () => {
    for (;;) {
      let next: IteratorResult<PendingRow>;
      try {
        next = await rows.next();
      } catch (error) {
        // The file itself failed (unreadable, bad CSV header): the generator is finished.
        readFailure ??= { error };
        return;
      }
      if (next.done) return;
      if (aborted) continue; // the generator returns at its next pull
      try {
        await importRow(next.value);
      } catch (error) {
        aborted ??= new ImportAbortedError(next.value.line, counts, { cause: error });
      }
      options.onProgress?.(counts);
    }
  };
  // Every worker finishes before this returns or throws, so no write lands after it.
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (readFailure) throw readFailure.error;
  if (aborted) throw aborted;
  return counts;
}
