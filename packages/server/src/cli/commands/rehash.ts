import { parseArgs } from 'node:util';
import { addRehashCounts, emptyRehashCounts, REHASH_OUTCOMES, type RehashCounts } from '../../features/rehash/rehash-counts.js';
import { MAX_SEGMENTS } from '../../features/rehash/job-cursor.js';
import { DEFAULT_REHASH_SEGMENTS, MAX_REPORTED_PROBLEMS, runRehashJob, type RehashProblem } from '../../features/rehash/run-rehash-job.js';
import { DEFAULT_REHASH_WRITES_PER_SECOND } from '../../features/rehash/settings.js';
import { CommandUsageError, describeFailure, parseCommandArgs, EXIT_INTERRUPTED, integerOption, writeLine, type CommandIo } from './command-io.js';
import { formatTable } from './format-table.js';
import { createProgress, ratePerSecond } from './progress.js';
import { storageHint } from './storage-hint.js';
import { buildRehashDependencies } from '../../wiring/build-dependencies.js';
import { openBulkTools } from './bulk-tools.js';

export const REHASH_USAGE = `usage: passlane rehash [--dry-run] [--segments N] [--max-writes-per-second N] [--cursor C]
                       [--round-seconds S] [--json]
Wraps weak and legacy records in argon2id and moves peppered records to the current key, without
passwords, until every account has been seen. Resumes from the cursor stored in the table
(pk "job#rehash"); --dry-run counts what it would do and writes nothing.
Exit: 0 done, 2 usage or failure, 130 interrupted (run again to resume).`;

/** Rounds end, store the cursor and start the next; a round also ends on Ctrl-C. */
const DEFAULT_ROUND_SECONDS = 300;

/** `passlane rehash`: loops job runs until the pass is done. Prints counts and userIds, never emails or hashes. */
export async function runRehashCommand(args: string[], io: CommandIo): Promise<number> {
  const options = parseCommandArgs(io, 'rehash', REHASH_USAGE, () => parseRehashArgs(args));
  if (options === undefined) return 2;
  const tools = openBulkTools(io, 'rehash');
  if (tools === undefined) return 2;
  const { client } = tools;
  const deps = buildRehashDependencies(tools.config, tools.platform);
  const progress = createProgress(io, io.clock);
  const startedAt = Date.now();
  const total = emptyRehashCounts();
  const problems: RehashProblem[] = [];
  let cursor = options.cursor;
  let done = false;
  let segments = options.segments;
  // Accounts seen in the round under way: a failure in the first round before any tells there is nothing to resume.
  let roundScanned = 0;
  try {
    while (!done && io.signal?.aborted !== true) {
      const roundEnds = Date.now() + options.roundSeconds * 1000;
      const result = await runRehashJob(deps, {
        ...(cursor !== undefined && { cursor }),
        segments: options.segments,
        dryRun: options.dryRun,
        maxWritesPerSecond: options.maxWritesPerSecond,
        remainingMs: () => roundEnds - Date.now(),
        signal: io.signal,
        onProgress: (round) => {
          roundScanned = round.scanned;
          progress.update(() => {
            const sum = addRehashCounts(addRehashCounts(emptyRehashCounts(), total), round);
            return { text: `${sum.scanned} accounts, ${sum.wrapped} wrapped, ${sum.rotated} rotated, ${ratePerSecond(sum.scanned, startedAt)}` };
          });
        },
      });
      roundScanned = 0;
      addRehashCounts(total, result.counts);
      problems.push(...result.problems.slice(0, MAX_REPORTED_PROBLEMS - problems.length));
      // Passed on explicitly: a dry run stores no cursor, and a real run's stored copy is the same.
      cursor = result.cursor;
      done = result.done;
      segments = result.segments;
    }
  } catch (error) {
    progress.done();
    client.destroy();
    writeLine(io.stderr, `passlane rehash: ${describeFailure(error)}`);
    const hint = storageHint(error, tools.config.storage);
    if (hint !== undefined) writeLine(io.stderr, hint);
    const started = total.scanned + roundScanned > 0 || cursor !== undefined;
    if (options.dryRun || !started) writeLine(io.stderr, `Nothing was written${hint === undefined ? '' : '; once that is fixed, run passlane rehash again'}.`);
    else writeLine(io.stderr, 'Run passlane rehash again to resume from the stored cursor.');
    return 2;
  }
  progress.done();
  client.destroy();

  const durationMs = Date.now() - startedAt;
  if (options.json) {
    writeLine(io.stdout, JSON.stringify({ done, dryRun: options.dryRun, segments, counts: total, problems, durationMs }));
  } else {
    printSummary(io, { done, dryRun: options.dryRun, counts: total, problems, durationMs });
  }
  if (!done) {
    writeLine(io.stderr, `passlane rehash: interrupted; ${options.dryRun ? 'nothing was written' : 'run it again to resume from the stored cursor'}.`);
    return EXIT_INTERRUPTED;
  }
  return 0;
}

function parseRehashArgs(args: string[]) {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean' },
      segments: { type: 'string' },
      'max-writes-per-second': { type: 'string' },
      cursor: { type: 'string' },
      'round-seconds': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (positionals.length > 0) throw new CommandUsageError('rehash takes no arguments');
  return {
    dryRun: values['dry-run'] === true,
    segments: integerOption(values.segments, 'segments', DEFAULT_REHASH_SEGMENTS, 1, MAX_SEGMENTS),
    maxWritesPerSecond: integerOption(values['max-writes-per-second'], 'max-writes-per-second', DEFAULT_REHASH_WRITES_PER_SECOND, 1, 100_000),
    cursor: values.cursor,
    roundSeconds: integerOption(values['round-seconds'], 'round-seconds', DEFAULT_ROUND_SECONDS, 1, 86_400),
    json: values.json === true,
  };
}

function printSummary(
  io: CommandIo,
  summary: { done: boolean; dryRun: boolean; counts: RehashCounts; problems: RehashProblem[]; durationMs: number },
): void {
  const { counts } = summary;
  const title = summary.done ? 'Rehash pass done' : 'Rehash stopped';
  const dry = summary.dryRun ? ' (dry run: nothing written; the counts are what a real run would do)' : '';
  writeLine(io.stdout, `${title}: ${counts.scanned} accounts seen in ${(summary.durationMs / 1000).toFixed(1)} s${dry}`);
  writeLine(io.stdout, formatTable(['outcome', 'accounts'], REHASH_OUTCOMES.map((outcome) => [outcome, counts[outcome]])));
  if (summary.problems.length > 0) {
    writeLine(io.stdout, `Records that need attention (userId, outcome, code)${counts.unparseable + counts.failed > summary.problems.length ? ', first ones' : ''}:`);
    writeLine(io.stdout, formatTable(['userId', 'outcome', 'code'], summary.problems.map((p) => [p.userId ?? '(none)', p.outcome, p.code])));
  }
}
