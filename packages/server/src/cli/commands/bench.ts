/**
 * `passlane bench` (also `npm run bench`, which runs this CLI): the argon2 parameter bench on this
 * machine, or with --remote on deployed bench functions across Lambda memory sizes.
 * See packages/server/src/cli/bench/README.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandIo } from './command-io.js';
import { createProgress, type ProgressSnapshot } from './progress.js';
import { renderChartSvg } from '../bench/chart-svg.js';
import { defaultSettings, parseNumberList, validateSettings } from '../bench/grid.js';
import type { BenchEvent } from '../bench/lambda-event.js';
import { DEFAULT_LAMBDA_PRICES, type LambdaArchitecture, type LambdaPrices } from '../bench/remote/lambda-pricing.js';
import { formatRemoteMarkdown, formatRemoteTerminal } from '../bench/remote/report-remote.js';
import { runRemoteBench } from '../bench/remote/run-remote.js';
import { formatMarkdownReport, formatTerminalReport } from '../bench/report-text.js';
import { runBench, type BenchProgress } from '../bench/run-bench.js';
import type { BenchBackend, BenchSettings } from '../bench/types.js';

export const BENCH_USAGE = `usage: passlane bench [--quick] [--backend native,wasm] [--memory KiB,..] [--passes 1,2] [--lanes 1]
                      [--budget-ms 300] [--concurrency 10] [--memory-budget-mib 1024]
                      [--rounds N] [--max-seconds S] [--clients 1,2,4,8,16] [--out DIR]
       passlane bench --remote FUNCTION[,FUNCTION] --memory 512,1024,1769,3008 [--arch arm64,x86_64]
                      [--argon2-memory KiB,..] [--region R] [--endpoint URL]
                      [--price-x86-gbs USD] [--price-arm64-gbs USD] [--price-requests USD-per-million] ...
Writes bench.json, bench.md and bench.svg to --out (default bench/results). With --remote,
--memory is Lambda memory sizes in MB and --argon2-memory the grid's m in KiB.`;

export class BenchUsageError extends Error {
  override name = 'BenchUsageError';
}

const OPTIONS = {
  quick: { type: 'boolean' },
  backend: { type: 'string' },
  memory: { type: 'string' },
  'argon2-memory': { type: 'string' },
  passes: { type: 'string' },
  lanes: { type: 'string' },
  'budget-ms': { type: 'string' },
  concurrency: { type: 'string' },
  'memory-budget-mib': { type: 'string' },
  rounds: { type: 'string' },
  'max-seconds': { type: 'string' },
  clients: { type: 'string' },
  out: { type: 'string' },
  remote: { type: 'string' },
  arch: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  'price-x86-gbs': { type: 'string' },
  'price-arm64-gbs': { type: 'string' },
  'price-requests': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

function numberOption(values: Values, name: keyof Values): number | undefined {
  const text = values[name];
  if (text === undefined || typeof text === 'boolean') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new BenchUsageError(`--${name} must be a number`);
  return value;
}

function listOption(values: Values, name: keyof Values): number[] | undefined {
  const text = values[name];
  return typeof text === 'string' ? parseNumberList(`--${name}`, text) : undefined;
}

function backendsOption(values: Values): BenchBackend[] | undefined {
  if (values.backend === undefined) return undefined;
  const list = values.backend.split(',').map((b) => b.trim());
  for (const b of list) if (b !== 'native' && b !== 'wasm') throw new BenchUsageError(`--backend: unknown backend ${b}`);
  return list as BenchBackend[];
}

/** The local run's settings: the defaults (or --quick), with each flag given replacing its field. */
export function settingsFromFlags(values: Values): BenchSettings {
  const s = defaultSettings(values.quick === true);
  s.grid.backends = backendsOption(values) ?? s.grid.backends;
  s.grid.memoryKiB = listOption(values, 'argon2-memory') ?? listOption(values, 'memory') ?? s.grid.memoryKiB;
  s.grid.passes = listOption(values, 'passes') ?? s.grid.passes;
  s.grid.lanes = listOption(values, 'lanes') ?? s.grid.lanes;
  s.budgetMs = numberOption(values, 'budget-ms') ?? s.budgetMs;
  s.concurrency = numberOption(values, 'concurrency') ?? s.concurrency;
  s.memoryBudgetMiB = numberOption(values, 'memory-budget-mib') ?? s.memoryBudgetMiB;
  s.rounds = numberOption(values, 'rounds') ?? s.rounds;
  s.maxSeconds = numberOption(values, 'max-seconds') ?? s.maxSeconds;
  s.clients = listOption(values, 'clients') ?? s.clients;
  return validateSettings(s);
}

function eventFromFlags(values: Values): BenchEvent {
  const backends = backendsOption(values);
  const memoryKiB = listOption(values, 'argon2-memory');
  const passes = listOption(values, 'passes');
  const lanes = listOption(values, 'lanes');
  const grid = { ...(backends && { backends }), ...(memoryKiB && { memoryKiB }), ...(passes && { passes }), ...(lanes && { lanes }) };
  const pick = (name: keyof Values) => numberOption(values, name);
  const event: BenchEvent = {
    ...(Object.keys(grid).length > 0 && { grid }),
    ...(values.quick && { quick: true }),
    ...(pick('budget-ms') !== undefined && { budgetMs: pick('budget-ms')! }),
    ...(pick('concurrency') !== undefined && { concurrency: pick('concurrency')! }),
    ...(pick('memory-budget-mib') !== undefined && { memoryBudgetMiB: pick('memory-budget-mib')! }),
    ...(pick('rounds') !== undefined && { rounds: pick('rounds')! }),
    ...(pick('max-seconds') !== undefined && { maxSeconds: pick('max-seconds')! }),
    ...(listOption(values, 'clients') && { clients: listOption(values, 'clients')! }),
  };
  return event;
}

function pricesFromFlags(values: Values): LambdaPrices {
  return {
    ...DEFAULT_LAMBDA_PRICES,
    perGbSecond: {
      x86_64: numberOption(values, 'price-x86-gbs') ?? DEFAULT_LAMBDA_PRICES.perGbSecond.x86_64,
      arm64: numberOption(values, 'price-arm64-gbs') ?? DEFAULT_LAMBDA_PRICES.perGbSecond.arm64,
    },
    perMillionRequests: numberOption(values, 'price-requests') ?? DEFAULT_LAMBDA_PRICES.perMillionRequests,
  };
}

/** What the bench touches of the CLI's CommandIo: its streams, and the clock its progress reads. */
export type BenchCommandIo = Pick<CommandIo, 'stdout' | 'stderr' | 'clock'>;

const defaultIo: BenchCommandIo = { stdout: process.stdout, stderr: process.stderr };

/**
 * Where each phase sits in the whole run, as shares of its time: run-bench.ts gives the rounds
 * up to half of the time bound and the bursts up to 80%, then the sustained load the rest.
 */
const PHASE_SPANS: Record<BenchProgress['phase'], readonly [number, number]> = {
  'warm-up': [0, 0.05],
  rounds: [0.05, 0.5],
  bursts: [0.5, 0.8],
  sustained: [0.8, 1],
  done: [1, 1],
};

/** The run's progress as one bar: the phase's span filled by its share done. */
export function benchSnapshot(progress: BenchProgress): ProgressSnapshot {
  const [from, to] = PHASE_SPANS[progress.phase];
  const share = Math.min(1, progress.done / Math.max(1, progress.total));
  return { fraction: from + (to - from) * share, text: `${progress.phase} ${progress.done}/${progress.total}${progress.label ? ` ${progress.label}` : ''}` };
}

/** For `passlane bench`: usage errors print the usage and exit 2, like the other subcommands. */
export async function benchCommand(argv: string[], io: BenchCommandIo = defaultIo): Promise<number> {
  try {
    return await runBenchCommand(argv, io);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    io.stderr.write(`passlane bench: ${error.message}\n${BENCH_USAGE}\n`);
    return 2;
  }
}

/** Returns the exit code: 0, or 1 when a remote run could not restore a function. */
export async function runBenchCommand(argv: string[], io: BenchCommandIo = defaultIo): Promise<number> {
  const print = (text: string) => io.stdout.write(`${text}\n`);
  let values: Values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false }));
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    print(BENCH_USAGE);
    return 0;
  }
  const outDir = resolve(values.out ?? join('bench', 'results'));
  await mkdir(outDir, { recursive: true });
  const write = async (name: string, text: string) => {
    const path = join(outDir, name);
    await writeFile(path, text);
    return path;
  };

  if (values.remote !== undefined) return runRemote(values, io, print, write);

  let settings: BenchSettings;
  try {
    settings = settingsFromFlags(values);
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
  const progress = createProgress(io, io.clock);
  const result = await runBench(settings, { onProgress: (p) => progress.update(() => benchSnapshot(p)) });
  progress.done();
  print(formatTerminalReport(result));
  const files = [
    await write('bench.json', `${JSON.stringify(result, null, 2)}\n`),
    await write('bench.svg', renderChartSvg(result)),
    await write('bench.md', formatMarkdownReport(result, 'bench.svg')),
  ];
  print(`\nwrote ${files.join(', ')}`);
  return 0;
}

async function runRemote(
  values: Values,
  io: BenchCommandIo,
  print: (text: string) => void,
  write: (name: string, text: string) => Promise<string>,
): Promise<number> {
  const functions = values.remote!.split(',').map((f) => f.trim()).filter(Boolean);
  const memorySizesMB = listOption(values, 'memory');
  if (functions.length === 0) throw new BenchUsageError('--remote needs a function name');
  if (!memorySizesMB) throw new BenchUsageError('--remote needs --memory with Lambda memory sizes in MB, e.g. 512,1024,1769,3008');
  for (const size of memorySizesMB) {
    if (!Number.isInteger(size) || size < 128 || size > 10240) throw new BenchUsageError(`--memory: ${size} MB is not a Lambda memory size (128 to 10240)`);
  }
  const architectures = values.arch?.split(',').map((a) => a.trim()) as LambdaArchitecture[] | undefined;
  for (const a of architectures ?? []) if (a !== 'arm64' && a !== 'x86_64') throw new BenchUsageError(`--arch: ${a} is not arm64 or x86_64`);
  const event = eventFromFlags(values);

  // Loaded here: the SDK is only needed for remote runs.
  const { createSdkLambdaControl } = await import('../bench/remote/sdk-lambda-control.js');
  const control = createSdkLambdaControl({ ...(values.region && { region: values.region }), ...(values.endpoint && { endpoint: values.endpoint }) });
  try {
    const result = await runRemoteBench(control, {
      functions,
      memorySizesMB,
      ...(architectures && { architectures }),
      event,
      prices: pricesFromFlags(values),
      log: (line) => io.stderr.write(`bench: ${line}\n`),
    });
    print(formatRemoteTerminal(result));
    const files = [await write('bench-remote.json', `${JSON.stringify(result, null, 2)}\n`), await write('bench-remote.md', formatRemoteMarkdown(result))];
    print(`\nwrote ${files.join(', ')}`);
    return result.restoreFailures.length > 0 ? 1 : 0;
  } finally {
    control.destroy();
  }
}
