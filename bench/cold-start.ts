/**
 * Cold-start cost of each Lambda bundle: zip size and the time a fresh `node` takes to import it,
 * against a bundle holding only @aws-sdk/client-dynamodb built with the same esbuild settings.
 *
 *   npm run bench:cold            (RUNS=n fresh processes per bundle, default 5; RUNS=1 is the quick form the tests run)
 *
 * Bundles are built by the packaging code itself (scripts/packaging), for the host's
 * architecture, so what is measured is what `npm run package` ships. Runs are interleaved
 * round-robin across bundles so drift in machine load hits all of them alike. A measurement:
 * it always exits 0.
 *
 * The password blocklist (packages/server/src/features/password/rules) is measured on its own too: what it adds to each
 * bundle that holds it (the data literal, and that literal deflated, about what it adds to the
 * zip), and, in fresh processes, what its first use costs a container (decoding it into the
 * sorted key array) beside what importing a bundle that holds it costs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PASSLANE_FUNCTIONS } from '../packages/server/src/cdk/functions.js';
import type { LambdaArchitecture } from '../scripts/packaging/architectures.js';
import { bundleFunction } from '../scripts/packaging/bundle-function.js';
import { BUNDLE_FILE, LAMBDA_FUNCTIONS, type LambdaFunction } from '../scripts/packaging/lambda-functions.js';
import { resolveBindingPackages } from '../scripts/packaging/native-packages.js';
import { zipFiles } from '../scripts/packaging/zip-directory.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Math.max(1, Number(process.env.RUNS) || 5);
const REFERENCE = 'sdk-only (reference)';
const BLOCKLIST_PROBE = 'blocklist probe';
/** The data literal as esbuild writes it: the asset's base64, which starts with the magic "PLB" ("UExC"). */
const BLOCKLIST_LITERAL = /(["'`])UExCM[A-Za-z0-9+/=]+\1/;
const ZIP_LIMIT_BYTES = 1024 * 1024;

/** Ratio of median import time to the reference's; functions not listed get no target. */
const IMPORT_TARGETS: Record<string, number> = { jwks: 0.35, openidConfiguration: 0.35, register: 1.3, login: 1.3, password: 1.3 };
/** Functions that serve no HTTP route (the authorizer, jobs), from the one description of the functions. */
const NON_HTTP = new Set(PASSLANE_FUNCTIONS.filter((fn) => fn.routes.length === 0).map((fn) => fn.name));

interface Bundle {
  name: string;
  file?: string;
  zipBytes?: number;
  /** The blocklist's data literal in the bundle's files, raw and deflated (0: none). */
  blocklistBytes?: number;
  blocklistDeflatedBytes?: number;
  error?: string;
  times: number[];
}

interface ProbeRun {
  importMs: number;
  loadMs: number;
  firstCheckMs: number;
  entries: number;
}

// The child reads the clock itself, so process start-up is not counted, only the module graph's
// load and top-level evaluation.
const IMPORT_SCRIPT =
  "import { pathToFileURL } from 'node:url';" +
  'const t0 = performance.now(); await import(pathToFileURL(process.argv[1]).href);' +
  'console.log(performance.now() - t0);';

async function buildAll(buildDir: string, arch: LambdaArchitecture): Promise<Bundle[]> {
  const bindings = resolveBindingPackages(root, arch, join(root, '.package', 'native-cache'));
  // The reference entry must sit inside the repo so `@aws-sdk/*` resolves from its node_modules;
  // node_modules/.cache is ignored by git, tsc and eslint alike.
  const cacheDir = join(root, 'node_modules', '.cache');
  const createdCacheDir = mkdirSync(cacheDir, { recursive: true }) !== undefined;
  const refDir = mkdtempSync(join(cacheDir, 'passlane-cold-start-'));
  try {
    const refEntry = join(refDir, 'sdk-only.js');
    // The handler references the client so tree shaking keeps it, as a real function would.
    writeFileSync(
      refEntry,
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport { DynamoDBClient };\nexport const handler = async () => new DynamoDBClient({});\n",
    );
    const reference: LambdaFunction = { name: REFERENCE, entry: relative(root, refEntry) };
    // The blocklist alone, bundled the same way: its handler decodes it and times that.
    const probeEntry = join(refDir, 'blocklist-probe.ts');
    writeFileSync(
      probeEntry,
      `import { loadBundledBlocklist } from ${JSON.stringify(join(root, 'packages/server/src/features/password/rules/bundled-blocklist.js'))};\n` +
        'export const handler = async () => {\n' +
        '  const t0 = performance.now(); const blocklist = await loadBundledBlocklist(); const t1 = performance.now();\n' +
        "  await blocklist.has('correct horse battery staple'); const t2 = performance.now();\n" +
        '  return { loadMs: t1 - t0, firstCheckMs: t2 - t1, entries: blocklist.size };\n' +
        '};\n',
    );
    const probe: LambdaFunction = { name: BLOCKLIST_PROBE, entry: relative(root, probeEntry) };
    return await Promise.all(
      [...LAMBDA_FUNCTIONS, reference, probe].map(async (fn): Promise<Bundle> => {
        const outDir = join(buildDir, fn === reference ? 'sdk-only' : fn === probe ? 'blocklist-probe' : fn.name);
        try {
          const { files } = await bundleFunction(fn, { root, outDir, arch, bindings });
          const zipBytes = zipFiles(outDir, files, `${outDir}.zip`);
          return { name: fn.name, file: join(outDir, BUNDLE_FILE), zipBytes, ...blocklistShare(outDir), times: [] };
        } catch (error) {
          // One broken entry (e.g. mid-refactor) must not hide the others' numbers.
          return { name: fn.name, error: firstLine(error), times: [] };
        }
      }),
    );
  } finally {
    rmSync(refDir, { recursive: true, force: true });
    if (createdCacheDir) rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** The blocklist literal's bytes across a bundle's JS files, and deflated (what it adds to the zip, about). */
function blocklistShare(outDir: string): { blocklistBytes: number; blocklistDeflatedBytes: number } {
  let blocklistBytes = 0;
  let blocklistDeflatedBytes = 0;
  for (const file of readdirSync(outDir).filter((name) => name.endsWith('.mjs'))) {
    const literal = BLOCKLIST_LITERAL.exec(readFileSync(join(outDir, file), 'utf8'))?.[0];
    if (literal === undefined) continue;
    blocklistBytes += literal.length;
    blocklistDeflatedBytes += deflateRawSync(literal, { level: 9 }).length;
  }
  return { blocklistBytes, blocklistDeflatedBytes };
}

// Import, then the first use of the blocklist, each timed in the child.
const PROBE_SCRIPT =
  "import { pathToFileURL } from 'node:url';" +
  'const t0 = performance.now(); const m = await import(pathToFileURL(process.argv[1]).href); const importMs = performance.now() - t0;' +
  'console.log(JSON.stringify({ importMs, ...(await m.handler()) }));';

function probeOnce(file: string): ProbeRun | string {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE_SCRIPT, file], {
    cwd: dirname(file),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    timeout: 60_000,
  });
  try {
    return JSON.parse(result.stdout.trim()) as ProbeRun;
  } catch {
    return `probe failed (exit ${result.status ?? result.signal}): ${firstLine(result.stderr)}`;
  }
}

/** One fresh process. A minimal environment: nothing of ours (NODE_OPTIONS, secrets) leaks in. */
function importOnce(file: string): number | string {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT, file], {
    cwd: dirname(file),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', NODE_ENV: 'production' },
    timeout: 60_000,
  });
  const ms = Number(result.stdout.trim());
  if (result.status === 0 && Number.isFinite(ms)) return ms;
  return `import failed (exit ${result.status ?? result.signal}): ${firstLine(result.stderr.split('\n').find((line) => /Error/.test(line)) ?? '')}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

function firstLine(value: unknown): string {
  const text = value instanceof Error ? value.message : String(value);
  return (text.split('\n')[0] ?? '').slice(0, 160);
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function report(bundles: Bundle[]): void {
  const refMs = median(bundles.find((b) => b.name === REFERENCE)?.times ?? []);
  const fmtZip = (b: Bundle) => (b.zipBytes === undefined ? '-' : (b.zipBytes / 1024).toFixed(0));
  const lines = [
    row(['function', 'zip KB', `median import ms (n=${RUNS})`, 'ratio to SDK-only', 'target', 'status']),
    row(['---', '---:', '---:', '---:', '---', '---']),
  ];
  const targeted = bundles.filter((b) => IMPORT_TARGETS[b.name] !== undefined);
  const other = bundles.filter((b) => IMPORT_TARGETS[b.name] === undefined && b.name !== REFERENCE && b.name !== BLOCKLIST_PROBE);
  const reference = bundles.filter((b) => b.name === REFERENCE);
  // The functions with a target, the reference, then the other HTTP functions, then the rest.
  const rest = [...other.filter((b) => !NON_HTTP.has(b.name)), ...other.filter((b) => NON_HTTP.has(b.name))];
  for (const b of [...targeted, ...reference, ...rest]) {
    const target = IMPORT_TARGETS[b.name];
    if (b.error !== undefined || b.times.length < RUNS) {
      lines.push(row([b.name, fmtZip(b), '-', '-', target === undefined ? '-' : `≤ ${target}x, zip < 1 MB`, b.error ?? 'import failed']));
      continue;
    }
    const ms = median(b.times);
    // Judged as printed: run-to-run noise is far above the third decimal.
    const ratio = Math.round((ms / refMs) * 100) / 100;
    let status = '-';
    if (target !== undefined) {
      const over = [ratio > target ? 'import' : '', (b.zipBytes ?? Infinity) >= ZIP_LIMIT_BYTES ? 'zip' : ''].filter(Boolean);
      status = over.length === 0 ? 'ok' : `over (${over.join(', ')})`;
    }
    const label = NON_HTTP.has(b.name) ? `${b.name} (non-HTTP)` : b.name;
    lines.push(row([label, fmtZip(b), ms.toFixed(1), Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-', target === undefined ? '-' : `≤ ${target}x, zip < 1 MB`, status]));
  }
  console.log(lines.join('\n'));
}

function reportBlocklist(bundles: Bundle[], probes: ProbeRun[], probeError: string | undefined): void {
  const kb = (bytes = 0) => (bytes / 1024).toFixed(0);
  const holding = bundles.filter((b) => (b.blocklistBytes ?? 0) > 0 && b.name !== BLOCKLIST_PROBE);
  const without = bundles.filter((b) => b.error === undefined && (b.blocklistBytes ?? 0) === 0 && b.name !== REFERENCE && b.name !== BLOCKLIST_PROBE);
  const lines = [
    '',
    'password blocklist (packages/server/src/features/password/rules): its data literal in each bundle that holds it, and that literal deflated (about what it adds to the zip)',
    '',
    row(['function', 'literal KB', 'deflated KB', 'zip KB']),
    row(['---', '---:', '---:', '---:']),
    ...holding.map((b) => row([b.name, kb(b.blocklistBytes), kb(b.blocklistDeflatedBytes), kb(b.zipBytes)])),
    '',
    `not in: ${without.map((b) => b.name).join(', ') || '-'}`,
  ];
  if (probes.length === 0) {
    lines.push('', `first use: ${probeError ?? 'not measured'}`);
  } else {
    const at = (pick: (run: ProbeRun) => number) => median(probes.map(pick)).toFixed(1);
    lines.push(
      '',
      `first use in a fresh process (median of ${probes.length}, ${probes[0]!.entries} keys): ` +
        `import of the bundle holding it ${at((r) => r.importMs)} ms, decode (once per container) ${at((r) => r.loadMs)} ms, ` +
        `first check ${at((r) => r.firstCheckMs)} ms`,
    );
  }
  console.log(lines.join('\n'));
}

async function main(): Promise<void> {
  // Host architecture: the bundles' native binaries must load in this very process tree.
  const arch: LambdaArchitecture = process.arch === 'arm64' ? 'arm64' : 'x86_64';
  const buildDir = mkdtempSync(join(tmpdir(), 'passlane-cold-start-'));
  try {
    const bundles = await buildAll(buildDir, arch);
    const runnable = bundles.filter((b) => b.file !== undefined && b.name !== BLOCKLIST_PROBE);
    for (let run = 0; run < RUNS; run++) {
      for (const b of runnable) {
        if (b.error !== undefined || b.file === undefined) continue;
        const result = importOnce(b.file);
        if (typeof result === 'number') b.times.push(result);
        else b.error = result;
      }
    }
    console.log(`cold import of each bundle, ${arch}, node ${process.version}, ${RUNS} fresh processes each (1 MB = 1024 KB)\n`);
    report(bundles);
    const probeBundle = bundles.find((b) => b.name === BLOCKLIST_PROBE);
    const probes: ProbeRun[] = [];
    let probeError = probeBundle?.error;
    for (let run = 0; run < RUNS && probeBundle?.file !== undefined && probeError === undefined; run++) {
      const result = probeOnce(probeBundle.file);
      if (typeof result === 'string') probeError = result;
      else probes.push(result);
    }
    reportBlocklist(bundles, probes, probeError);
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(firstLine(error));
});
