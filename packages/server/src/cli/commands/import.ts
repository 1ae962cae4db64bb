import { parseArgs } from 'node:util';
import { ImportAbortedError } from '../../features/import/errors.js';
import { importFormatOf } from '../../features/import/import-format.js';
import { DEFAULT_IMPORT_CONCURRENCY, DEFAULT_IMPORT_WRITES_PER_SECOND, importUsers, type ImportCounts } from '../../features/import/import-users.js';
import { openImportFile } from '../../features/import/read-import-file.js';
import { openRejectsFile } from '../../features/import/rejects-file.js';
import { CommandUsageError, describeFailure, parseCommandArgs, EXIT_INTERRUPTED, integerOption, writeLine, type CommandIo } from './command-io.js';
import { trackConsumedBytes } from './import-progress.js';
import { createProgress, ratePerSecond } from './progress.js';
import { storageFailureOf, storageHint } from './storage-hint.js';
import { buildAccountTools } from '../../wiring/build-dependencies.js';
import { systemClock } from '../../shared/system-clock.js';
import { openBulkTools } from './bulk-tools.js';

export const IMPORT_USAGE = `usage: passlane import FILE [--format jsonl|csv] [--rejects PATH] [--concurrency N]
                       [--max-writes-per-second N] [--json]
FILE: JSON lines or CSV (by extension, or --format) with email, hash, and optional userId, createdAt.
Existing accounts are never overwritten (counted as skipped); rejected rows go to FILE.rejects.jsonl
(no file when none was rejected).
Table and endpoint as the server: PASSLANE_TABLE, DYNAMODB_ENDPOINT, AWS_REGION.
Exit: 0 all rows imported or skipped, 1 rows rejected or import stopped, 2 usage, 130 interrupted.`;

interface ImportSummary extends ImportCounts {
  /** Where the rejected rows are; absent when none was rejected (the file is removed). */
  rejectsFile?: string;
  rejectedByCode: Record<string, number>;
  /** False when stopped early (Ctrl-C or a storage failure): run the same file again to finish. */
  complete: boolean;
  durationMs: number;
}

/** `passlane import FILE`: see IMPORT_USAGE and packages/server/src/features/rehash/README.md. Console output never holds a hash or an email. */
export async function runImportCommand(args: string[], io: CommandIo): Promise<number> {
  const options = parseCommandArgs(io, 'import', IMPORT_USAGE, () => parseImportArgs(args));
  if (options === undefined) return 2;
  const { file, format, rejectsPath, concurrency, maxWritesPerSecond, json } = options;

  const tools = openBulkTools(io, 'import');
  if (tools === undefined) return 2;
  const { client } = tools;
  const { hasher, users } = buildAccountTools(tools.config, tools.platform);
  const startedAt = Date.now();
  const progress = createProgress(io, io.clock);
  const rejectedByCode: Record<string, number> = {};
  let counts: ImportCounts = { rows: 0, imported: 0, skipped: 0, rejected: 0 };
  let failure: unknown;

  let input;
  try {
    input = await openImportFile(file, format);
  } catch (error) {
    client.destroy();
    writeLine(io.stderr, `passlane import: cannot read ${file}: ${describeFailure(error)}`);
    return 2;
  }
  let rejects;
  try {
    rejects = openRejectsFile(rejectsPath);
  } catch (error) {
    input.close();
    client.destroy();
    writeLine(io.stderr, `passlane import: cannot write the rejects file ${rejectsPath}: ${describeFailure(error)}`);
    return 2;
  }
  const tracked = trackConsumedBytes(input.records);
  try {
    counts = await importUsers({ hasher, users, now: systemClock }, tracked.records, {
      concurrency,
      maxWritesPerSecond,
      signal: io.signal,
      onReject: async (reject) => {
        rejectedByCode[reject.code] = (rejectedByCode[reject.code] ?? 0) + 1;
        await rejects.write(reject);
      },
      onProgress: (current) => {
        counts = current;
        progress.update(() => ({
          fraction: input.totalBytes > 0 ? tracked.consumed() / input.totalBytes : undefined,
          text: `${current.rows} rows, ${current.imported} imported, ${current.skipped} skipped, ${current.rejected} rejected, ${ratePerSecond(current.rows, startedAt)}`,
        }));
      },
    });
  } catch (error) {
    failure = error;
    if (error instanceof ImportAbortedError) counts = { ...error.counts };
  } finally {
    progress.done();
    client.destroy();
    try {
      await rejects.close();
    } catch (error) {
      // The rejects file is incomplete (disk full?): the run must not look clean.
      failure ??= error;
    }
  }

  const interrupted = io.signal?.aborted === true;
  const summary: ImportSummary = {
    ...counts,
    ...(counts.rejected > 0 && { rejectsFile: rejectsPath }),
    rejectedByCode,
    complete: failure === undefined && !interrupted,
    durationMs: Date.now() - startedAt,
  };
  const stoppedAt = failure instanceof ImportAbortedError ? failure.line : undefined;
  if (json) writeLine(io.stdout, JSON.stringify(failure === undefined ? summary : { ...summary, ...(stoppedAt !== undefined && { stoppedAtLine: stoppedAt }), error: describeFailure(failure) }));
  else printSummary(io, summary, stoppedAt);
  if (failure !== undefined) {
    writeLine(io.stderr, `passlane import: ${describeFailure(failure)}`);
    const hint = storageHint(failure, tools.config.storage);
    if (hint !== undefined) writeLine(io.stderr, hint);
    if (failure instanceof ImportAbortedError) {
      writeLine(io.stderr, `${storageFailureOf(failure) === undefined || hint === undefined ? 'Run' : 'Then run'} the same import again to continue: imported rows are skipped.`);
    }
    return failure instanceof ImportAbortedError ? 1 : 2;
  }
  if (interrupted) {
    writeLine(io.stderr, 'passlane import: interrupted; run the same import again to continue (imported rows are skipped).');
    return EXIT_INTERRUPTED;
  }
  return counts.rejected > 0 ? 1 : 0;
}

function parseImportArgs(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      rejects: { type: 'string' },
      concurrency: { type: 'string' },
      'max-writes-per-second': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (positionals.length !== 1) throw new CommandUsageError('import takes exactly one FILE');
  const file = positionals[0]!;
  return {
    file,
    format: importFormatOf(file, values.format),
    rejectsPath: values.rejects ?? `${file}.rejects.jsonl`,
    concurrency: integerOption(values.concurrency, 'concurrency', DEFAULT_IMPORT_CONCURRENCY, 1, 256),
    maxWritesPerSecond: integerOption(values['max-writes-per-second'], 'max-writes-per-second', DEFAULT_IMPORT_WRITES_PER_SECOND, 1, 100_000),
    json: values.json === true,
  };
}

/** `stoppedAt`: the line whose write failed; rows read past it (in flight) are not counted as read. */
function printSummary(io: CommandIo, summary: ImportSummary, stoppedAt: number | undefined): void {
  const seconds = (summary.durationMs / 1000).toFixed(1);
  const head = stoppedAt !== undefined ? `Stopped at line ${stoppedAt} after ${seconds} s` : `${summary.complete ? 'Read' : 'Stopped early after'} ${summary.rows} rows in ${seconds} s`;
  writeLine(io.stdout, `${head}: ${summary.imported} imported, ${summary.skipped} skipped (account exists), ${summary.rejected} rejected`);
  if (summary.rejected > 0) {
    const byCode = Object.entries(summary.rejectedByCode)
      .sort(([, a], [, b]) => b - a)
      .map(([code, count]) => `${code} ${count}`)
      .join(', ');
    writeLine(io.stdout, `Rejected rows (line, reason, row): ${summary.rejectsFile} (${byCode})`);
  }
}
