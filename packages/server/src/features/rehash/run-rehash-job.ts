import type { PasswordHasher } from 'passlane/common';
import { JobCursorChangedError } from '../../storage/errors.js';
import type { ScannedAccount, AccountStore } from '../../storage/account-store.js';
import type { JobCursorStore } from '../../storage/job-cursor-store.js';
import { createWritePacer } from '../../storage/write-pacer.js';
import { currentPepperKeyId } from './current-pepper-key.js';
import { RehashCursorInvalidError, RehashInputInvalidError } from './errors.js';
import { decodeCursor, encodeCursor, freshCursor, isFinished, isPassFinished, MAX_SEGMENTS, type RehashCursor } from './job-cursor.js';
import { belongsToPass, rehashAccount } from './rehash-account.js';
import { emptyRehashCounts, type RehashCounts } from './rehash-counts.js';
import { DEFAULT_REHASH_WRITES_PER_SECOND } from './settings.js';

/** The job's cursor item is pk "job#rehash". */
export const REHASH_JOB_NAME = 'rehash';
export const DEFAULT_REHASH_SEGMENTS = 4;
export const DEFAULT_REHASH_PAGE_SIZE = 100;
export const CURSOR_SAVE_INTERVAL_MS = 2_000;
/** Problems listed by userId in one run's result; the counts have them all. */
export const MAX_REPORTED_PROBLEMS = 100;

export interface RehashJobDependencies {
  hasher: Pick<PasswordHasher, 'describe' | 'needsRehash' | 'wrap' | 'rotatePepper'>;
  users: Pick<AccountStore, 'scanAccounts' | 'replacePasswordHash'>;
  cursors: Pick<JobCursorStore, 'get' | 'put'>;
  clock?: () => number;
}

export interface RehashJobOptions {
  /** Start here; otherwise from the stored cursor (unless finished or dry run), else a fresh pass. */
  cursor?: string;
  /** Parallel Scan segments for a fresh pass (1..64, default 4); also the number of accounts in flight. */
  segments?: number;
  /** Plan and count, write nothing (neither hashes nor the cursor). */
  dryRun?: boolean;
  /** Keep the cursor in the table (pk "job#rehash"); default true, always false for dry runs. */
  storeCursor?: boolean;
  /** Time this run may still use, in ms; it stops at the next account once this is <= 0. */
  remainingMs?: () => number;
  /** Stop after this many accounts (tests, careful first runs). */
  maxItems?: number;
  pageSize?: number;
  maxWritesPerSecond?: number;
  /** Stops at the next account, like running out of time (Ctrl-C in the CLI). */
  signal?: AbortSignal;
  onProgress?(counts: Readonly<RehashCounts>): void;
}

export interface RehashProblem {
  /** null when the item has no userId. Never the email. */
  userId: string | null;
  outcome: 'unparseable' | 'failed';
  code: string;
}

export interface RehashJobResult {
  /** Pass it back (or rely on the stored copy) to continue; a finished cursor means done. */
  cursor: string;
  done: boolean;
  dryRun: boolean;
  segments: number;
  counts: RehashCounts;
  problems: RehashProblem[];
}

/**
 * One run of the rehash job: a parallel segmented Scan, each segment its own cursor and one
 * account at a time, all segments sharing one write rate. A pass over the table scans it twice:
 * first for fast digests only (the records attackers crack first, so they are wrapped within
 * minutes whatever the table's size; reads are cheap next to argon2 runs), then for the rest. Each account is planned, wrapped or
 * re-sealed, and written back with a compare-and-swap (rehash-account.ts). The run stops when
 * its time is up, between accounts, with a cursor that points right after the last account it
 * finished; the cursor is also stored (every few seconds and at the end), conditional on the
 * value this run last saw, so a killed run resumes where it stopped and two runs never move it
 * past each other. Work redone after a kill is harmless: a wrapped record is never wrapped again.
 */
export async function runRehashJob(deps: RehashJobDependencies, options: RehashJobOptions = {}): Promise<RehashJobResult> {
  const clock = deps.clock ?? Date.now;
  const dryRun = options.dryRun === true;
  const storeCursor = !dryRun && options.storeCursor !== false;
  const pageSize = integerOption('pageSize', options.pageSize ?? DEFAULT_REHASH_PAGE_SIZE, 1, 1000);
  const newSegments = integerOption('segments', options.segments ?? DEFAULT_REHASH_SEGMENTS, 1, MAX_SEGMENTS);
  const maxItems = options.maxItems === undefined ? Infinity : integerOption('maxItems', options.maxItems, 0, Number.MAX_SAFE_INTEGER);
  const pacer = createWritePacer(options.maxWritesPerSecond ?? DEFAULT_REHASH_WRITES_PER_SECOND);

  let expectedStored = storeCursor ? await deps.cursors.get(REHASH_JOB_NAME) : undefined;
  const cursor = startingCursor(options.cursor, expectedStored, newSegments);
  const pepperKeyId = await currentPepperKeyId(deps.hasher);
  const counts = emptyRehashCounts();
  const problems: RehashProblem[] = [];
  let fatal: unknown;
  let started = 0;

  const shouldStop = () =>
    fatal !== undefined || options.signal?.aborted === true || started >= maxItems || (options.remainingMs?.() ?? Infinity) <= 0;

  // Cursor saves are chained, so each is conditional on the previous one's value.
  let saving = Promise.resolve();
  let lastSaveAt = clock();
  const saveCursor = (force: boolean): Promise<void> => {
    if (!storeCursor || (!force && clock() - lastSaveAt < CURSOR_SAVE_INTERVAL_MS)) return saving;
    lastSaveAt = clock();
    saving = saving.then(async () => {
      if (fatal instanceof JobCursorChangedError) return;
      const encoded = encodeCursor(cursor);
      if (encoded === expectedStored) return;
      try {
        await deps.cursors.put({ job: REHASH_JOB_NAME, cursor: encoded, expected: expectedStored });
        expectedStored = encoded;
      } catch (error) {
        // A lost race means another run owns the cursor: that, above all, must stop this run.
        fatal = fatal === undefined || error instanceof JobCursorChangedError ? error : fatal;
      }
    });
    return saving;
  };

  const context = { hasher: deps.hasher, users: deps.users, currentPepperKeyId: pepperKeyId, dryRun, beforeWrite: () => pacer.take() };
  const handle = async (account: ScannedAccount) => {
    const { outcome, code } = await rehashAccount(context, account);
    counts.scanned++;
    counts[outcome]++;
    if ((outcome === 'unparseable' || outcome === 'failed') && problems.length < MAX_REPORTED_PROBLEMS) {
      problems.push({ userId: account.userId ?? null, outcome, code: code ?? 'unknown' });
    }
    options.onProgress?.(counts);
  };

  const runSegment = async (segment: number) => {
    const totalSegments = cursor.segments.length;
    for (let position = cursor.segments[segment]!; !position.done; position = cursor.segments[segment]!) {
      if (shouldStop()) return;
      const page = await deps.users.scanAccounts({ segment, totalSegments, startKey: position.after, limit: pageSize });
      for (const account of page.items) {
        if (shouldStop()) return;
        if (belongsToPass(deps.hasher, account, cursor.pass)) {
          started++;
          await handle(account);
        }
        // Only a finished account moves the cursor; a Scan can resume after any key it returned.
        cursor.segments[segment] = { after: account.pk };
      }
      cursor.segments[segment] = page.lastKey === undefined ? { done: true } : { after: page.lastKey };
      void saveCursor(false);
    }
  };

  const runPass = () =>
    Promise.all(
      cursor.segments.map((_, segment) =>
        runSegment(segment).catch((error: unknown) => {
          fatal ??= error;
        }),
      ),
    );
  await runPass();
  if (cursor.pass === 'fast_digests' && isPassFinished(cursor) && !shouldStop()) {
    Object.assign(cursor, freshCursor(cursor.segments.length, 'the_rest'));
    await runPass();
  }
  await saveCursor(true);
  if (fatal !== undefined) throw fatal;
  return { cursor: encodeCursor(cursor), done: isFinished(cursor), dryRun, segments: cursor.segments.length, counts, problems };
}

/** An explicit cursor wins; then an unfinished stored one; otherwise a new pass over the table. */
function startingCursor(explicit: string | undefined, stored: string | undefined, segments: number): RehashCursor {
  if (explicit !== undefined) return decodeCursor(explicit);
  if (stored !== undefined) {
    try {
      const resumed = decodeCursor(stored);
      if (!isFinished(resumed)) return resumed;
    } catch (error) {
      // Unreadable (say, written by a newer version): start over; every step is idempotent.
      if (!(error instanceof RehashCursorInvalidError)) throw error;
    }
  }
  return freshCursor(segments);
}

function integerOption(name: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RehashInputInvalidError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}
