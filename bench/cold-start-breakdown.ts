/**
 * What each Lambda bundle loads at import, and what its import spends on it: esbuild's metafile
 * (bytes of index.mjs per input module, grouped as bench/profile-summary.ts groups them; the
 * chunks read only behind a dynamic import listed apart) and V8 CPU profiles of the import in
 * fresh processes (self time by group, through the bundle's source maps), beside the SDK-only
 * bundle bench/cold-start.ts compares against.
 *
 *   npx tsx --conditions=passlane-source bench/cold-start-breakdown.ts [--runs 5] [--interval 50] [--top 15] [--save DIR] [--compare DIR] [login register password ...]
 *
 * `--save DIR` keeps the bundles built (with their metafiles); `--compare DIR` imports bundles
 * saved so by another build too, as "<name> (before)", in the same round-robin: a change's
 * before and after measured in one run.
 *
 * The bundles are built by the packaging code, as `npm run package` builds them, with source maps
 * beside them (the maps are not read at import). Fresh processes run round-robin across the
 * bundles. In a minified bundle, the top-level code of the ES modules esbuild hoists into one
 * scope is one function: its self time is charged to the module its first statement came from,
 * and is printed as "top-level code (hoisted ES modules)" instead. A measurement: exits 0 unless
 * set-up fails.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Metafile } from 'esbuild';
import type { LambdaArchitecture } from '../scripts/packaging/architectures.js';
import { bundleFunction } from '../scripts/packaging/bundle-function.js';
import { BUNDLE_FILE, LAMBDA_FUNCTIONS, type LambdaFunction } from '../scripts/packaging/lambda-functions.js';
import { resolveBindingPackages } from '../scripts/packaging/native-packages.js';
import { median } from '../packages/server/src/cli/bench/statistics.js';
import { groupOf, markdownTable, readProfile, summarise, type CpuProfile, type ProfileSummary } from './profile-summary.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const REFERENCE = 'sdk-only';

interface Built {
  name: string;
  dir: string;
  metafile: Metafile;
  importMs: number[];
  summaries: ProfileSummary[];
}

/**
 * KB per group of what the import loads: index.mjs and the chunks it imports statically (code
 * shared with a lazy chunk lands in a chunk of its own, read at import all the same); and the
 * chunks read only behind a dynamic import, by name and size.
 */
function bytesByGroup(built: Built): { groups: Map<string, number>; modules: Map<string, number>; total: number; chunks: Array<[string, number]> } {
  const { outputs } = built.metafile;
  const entryFile = Object.keys(outputs).find((file) => file.endsWith(`/${built.name}/${BUNDLE_FILE}`));
  if (entryFile === undefined) throw new Error(`no ${BUNDLE_FILE} in ${built.name}'s metafile`);
  const atImport = new Set<string>();
  const visit = (file: string): void => {
    if (atImport.has(file) || outputs[file] === undefined) return;
    atImport.add(file);
    for (const imported of outputs[file]!.imports) if (imported.kind === 'import-statement' && imported.external !== true) visit(imported.path);
  };
  visit(entryFile);
  const groups = new Map<string, number>();
  const modules = new Map<string, number>();
  let total = 0;
  for (const file of atImport) {
    total += outputs[file]!.bytes;
    for (const [input, { bytesInOutput }] of Object.entries(outputs[file]!.inputs)) {
      const source = input.slice(Math.max(0, input.lastIndexOf('node_modules/')));
      const group = groupOf(source, 'module');
      groups.set(group, (groups.get(group) ?? 0) + bytesInOutput);
      const module = /^node_modules\/((@[^/]+\/)?[^/]+)/.exec(source)?.[1] ?? source;
      modules.set(module, (modules.get(module) ?? 0) + bytesInOutput);
    }
  }
  const shipped = new Set(readdirSync(built.dir));
  const chunks = Object.entries(outputs)
    .filter(([file, output]) => file.endsWith('.mjs') && !atImport.has(file) && shipped.has(file.split('/').pop()!) && output.bytes > 1024)
    .map(([file, output]): [string, number] => [file.split('/').pop()!, output.bytes]);
  return { groups, modules, total, chunks };
}

/** One fresh process importing the bundle under the profiler; the import's own time, read inside. */
function profileImport(built: Built, profileDir: string, intervalUs: number, run: number): void {
  const dir = join(profileDir, `${built.name}-${run}`);
  const script = "import { pathToFileURL } from 'node:url'; const t0 = performance.now(); await import(pathToFileURL(process.argv[1]).href); console.log(performance.now() - t0);";
  const result = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${intervalUs}`, '--input-type=module', '-e', script, join(built.dir, BUNDLE_FILE)], {
    cwd: built.dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', NODE_ENV: 'production' },
    timeout: 60_000,
  });
  const ms = Number(result.stdout.trim());
  if (result.status !== 0 || !Number.isFinite(ms)) throw new Error(`${built.name}: import failed: ${result.stderr.split('\n').find((line) => /Error/.test(line)) ?? result.status}`);
  built.importMs.push(ms);
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`${built.name}: no profile written`);
  const profile = readProfile(join(dir, file));
  built.summaries.push(summarise(onlyTheImport(profile, built)));
}

/**
 * The profile from the first sample inside the bundle's files to the end: what came before is
 * Node starting up, the same for every bundle. The bundle's top-level function is renamed so
 * its self time shows as such.
 */
function onlyTheImport(profile: CpuProfile, built: Built): CpuProfile {
  const dirUrl = `${pathToFileURL(built.dir).href}/`;
  const inBundle = new Set(profile.nodes.filter((node) => node.callFrame.url.startsWith(dirUrl)).map((node) => node.id));
  for (const node of profile.nodes) {
    if (inBundle.has(node.id) && node.callFrame.lineNumber === 0 && node.callFrame.columnNumber === 0) {
      node.callFrame = { ...node.callFrame, url: '', functionName: '(top-level code of hoisted ES modules)' };
    }
  }
  // Charge the top-level function's builtins (no url) to it rather than to Node's loader.
  const first = profile.samples.findIndex((id) => inBundle.has(id));
  if (first < 0) return profile;
  return { ...profile, samples: profile.samples.slice(first), timeDeltas: profile.timeDeltas.slice(first) };
}

/** A saved metafile with its outputs' directory renamed, so bytesByGroup finds them under the new name. */
function reroot(metafile: Metafile, from: string, to: string): Metafile {
  const outputs = Object.fromEntries(
    Object.entries(metafile.outputs).map(([file, output]) => [
      file.replace(`/${from}/`, `/${to}/`),
      { ...output, imports: output.imports.map((imported) => ({ ...imported, path: imported.path.replace(`/${from}/`, `/${to}/`) })) },
    ]),
  );
  return { ...metafile, outputs };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string' }, interval: { type: 'string' }, top: { type: 'string' }, save: { type: 'string' }, compare: { type: 'string' } } });
  const runs = Math.max(1, Number(values.runs ?? 5) || 5);
  const intervalUs = Math.max(10, Number(values.interval ?? 50) || 50);
  const top = Math.max(1, Number(values.top ?? 15) || 15);
  const names = positionals.length > 0 ? positionals : ['login', 'register', 'password'];
  const arch: LambdaArchitecture = process.arch === 'arm64' ? 'arm64' : 'x86_64';
  const loadAtStart = loadavg()[0] ?? 0;
  const buildDir = mkdtempSync(join(tmpdir(), 'passlane-cold-breakdown-'));
  // The reference's entry must sit inside the repository so `@aws-sdk/*` resolves (as in bench/cold-start.ts).
  const cacheDir = join(root, 'node_modules', '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const refDir = mkdtempSync(join(cacheDir, 'passlane-cold-breakdown-'));
  try {
    const refEntry = join(refDir, 'sdk-only.js');
    writeFileSync(refEntry, "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport { DynamoDBClient };\nexport const handler = async () => new DynamoDBClient({});\n");
    const functions: LambdaFunction[] = [
      ...names.map((name) => {
        const fn = LAMBDA_FUNCTIONS.find((f) => f.name === name);
        if (fn === undefined) throw new Error(`no Lambda function named ${name}`);
        return fn;
      }),
      { name: REFERENCE, entry: relative(root, refEntry) },
    ];
    const bindings = resolveBindingPackages(root, arch, join(root, '.package', 'native-cache'));
    const built: Built[] = await Promise.all(
      functions.map(async (fn) => {
        const dir = join(buildDir, fn.name);
        const { metafile } = await bundleFunction(fn, { root, outDir: dir, arch, bindings, sourcemap: true });
        return { name: fn.name, dir, metafile, importMs: [], summaries: [] };
      }),
    );
    if (values.save !== undefined) {
      for (const b of built) {
        cpSync(b.dir, join(values.save, b.name), { recursive: true });
        writeFileSync(join(values.save, b.name, 'metafile.json'), JSON.stringify(b.metafile));
      }
    }
    if (values.compare !== undefined) {
      for (const name of names) {
        const dir = join(values.compare, name);
        if (!existsSync(join(dir, 'metafile.json'))) throw new Error(`${dir} holds no saved bundle (--save)`);
        // The metafile names outputs by the directory they were built in: re-rooted on `name`.
        const metafile = JSON.parse(readFileSync(join(dir, 'metafile.json'), 'utf8')) as Metafile;
        built.push({ name: `${name} (before)`, dir, metafile: reroot(metafile, name, `${name} (before)`), importMs: [], summaries: [] });
      }
    }
    const profileDir = join(buildDir, 'profiles');
    for (let run = 0; run < runs; run++) for (const b of built) profileImport(b, profileDir, intervalUs, run);

    const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
    console.log(`cold import breakdown, ${arch}: node ${process.version}, ${model}, ${cpus().length} cores, load ${loadAtStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at the end; ${runs} fresh processes each, profiled every ${intervalUs} µs`);
    console.log('');
    const ref = built.find((b) => b.name === REFERENCE)!;
    console.log(
      markdownTable(
        ['bundle', 'KB read at import (index.mjs and its static chunks)', 'median import ms (profiled)', 'x sdk-only'],
        built.map((b) => [b.name, (bytesByGroup(b).total / 1024).toFixed(0), median(b.importMs).toFixed(1), (median(b.importMs) / median(ref.importMs)).toFixed(2)]),
      ),
    );
    const sizes = new Map(built.map((b) => [b.name, bytesByGroup(b)]));
    const groupNames = [...new Set(built.flatMap((b) => [...sizes.get(b.name)!.groups.keys()]))].sort(
      (a, b) => (sizes.get(built[0]!.name)!.groups.get(b) ?? 0) - (sizes.get(built[0]!.name)!.groups.get(a) ?? 0),
    );
    console.log('', 'read at import (index.mjs and its static chunks), KB of minified code per group (esbuild metafile, bytesInOutput):', '');
    console.log(markdownTable(['group', ...built.map((b) => b.name)], groupNames.map((group) => [group, ...built.map((b) => ((sizes.get(b.name)!.groups.get(group) ?? 0) / 1024).toFixed(1))])));
    console.log('', `read at import, the ${top} largest packages or source files of each bundle (KB):`, '');
    for (const b of built.filter((x) => x.name !== REFERENCE)) {
      const modules = [...sizes.get(b.name)!.modules.entries()].sort(([, x], [, y]) => y - x).slice(0, top);
      console.log(`- ${b.name}: ${modules.map(([module, bytes]) => `${module} ${(bytes / 1024).toFixed(1)}`).join(', ')}`);
      const chunks = sizes.get(b.name)!.chunks;
      console.log(`  chunks read only behind a dynamic import: ${chunks.map(([file, bytes]) => `${file} ${(bytes / 1024).toFixed(0)}`).join(', ') || '-'}`);
    }
    // CPU self time of the import by group: the median over the runs of each group's ms.
    const importGroups = [...new Set(built.flatMap((b) => b.summaries.flatMap((s) => [...s.groups.keys()])))];
    const medianOf = (b: Built, group: string) => median(b.summaries.map((s) => s.groups.get(group) ?? 0));
    importGroups.sort((a, b) => medianOf(built[0]!, b) - medianOf(built[0]!, a));
    console.log('', 'the import under the profiler, main thread self ms by group (median over the processes; from the first sample inside the bundle):', '');
    console.log(
      markdownTable(
        ['group', ...built.map((b) => b.name)],
        importGroups
          .filter((group) => built.some((b) => medianOf(b, group) >= 0.5))
          .map((group) => [group, ...built.map((b) => medianOf(b, group).toFixed(1))])
          .concat([['busy, all groups', ...built.map((b) => median(b.summaries.map((s) => [...s.groups.values()].reduce((x, y) => x + y, 0))).toFixed(1))]]),
      ),
    );
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
    rmSync(refDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(`cold-start-breakdown: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
