/**
 * npm run bench: argon2 parameters on this machine. Same as `passlane bench`; flags in
 * packages/server/src/cli/commands/bench.ts (--help), method in bench/engine/README.md.
 */
import { BENCH_USAGE, BenchUsageError, runBenchCommand } from '../packages/server/src/cli/commands/bench.js';

runBenchCommand(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof BenchUsageError) console.error(BENCH_USAGE);
    process.exitCode = 2;
  },
);
