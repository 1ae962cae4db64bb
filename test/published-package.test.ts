/**
 * What `npm publish` would ship of each package, read from `npm pack --dry-run` over the built
 * dist/ (npm test builds first): the hashing core (`passlane`) with its types and WASM, and the
 * server (`@passlane/server`) with its subpaths and the CLI bundle; nothing else (no TypeScript
 * sources, tests, bench modules or Lambda entry points). Then both are packed for real with the
 * README's command ("The packages, from a clone") and installed as it says: the core alone in one
 * fresh project, which hashes a password, and both in another, which loads the server's subpaths.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from './support/run-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

interface PackageJson {
  name: string;
  version: string;
  bin?: Record<string, string>;
  exports: Record<string, string | Record<string, string | Record<string, string>>>;
  dependencies: Record<string, string>;
}
const manifest = async (dir: string) => JSON.parse(await readFile(join(ROOT, dir, 'package.json'), 'utf8')) as PackageJson;

/** Every file an `exports` map points at for a consumer: not the repository's `passlane-source`. */
function exportTargets(pkg: PackageJson): string[] {
  const targets = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : Object.entries(value as Record<string, unknown>).flatMap(([condition, inner]) => (condition === 'passlane-source' ? [] : targets(inner)));
  return Object.values(pkg.exports).flatMap(targets).map((path) => path.replace(/^\.\//, ''));
}

async function packedFiles(dir: string): Promise<string[]> {
  // --ignore-scripts: `prepare` would rebuild dist/ under the other tests' feet.
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--offline'], { cwd: join(ROOT, dir), maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return packed!.files.map((file) => file.path);
}

const sources = (files: string[]) => files.filter((path) => /\.(ts|mts|cts)$/.test(path) && !/\.d\.ts$/.test(path));

describe('passlane, the hashing core', () => {
  let pkg: PackageJson;
  let files: string[];
  beforeAll(async () => {
    [pkg, files] = await Promise.all([manifest('packages/passlane'), packedFiles('packages/passlane')]);
  });

  it('holds its entries, their types, every export target and the WASM module', () => {
    for (const path of ['dist/index.js', 'dist/index.d.ts', 'dist/edge.js', 'dist/edge.d.ts', 'dist/backends/wasm/argon2.wasm', 'LICENSE', ...exportTargets(pkg)]) {
      expect(files).toContain(path);
    }
  });

  it('holds no sources, no server code, and depends on nothing of the server', () => {
    expect(sources(files)).toEqual([]);
    expect(files.filter((path) => /bench|cli|runtimes|storage|api\//.test(path))).toEqual([]);
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@noble/hashes', '@node-rs/argon2', '@node-rs/bcrypt', 'bcryptjs']);
  });
});

describe('@passlane/server', () => {
  let pkg: PackageJson;
  let files: string[];
  beforeAll(async () => {
    [pkg, files] = await Promise.all([manifest('packages/server'), packedFiles('packages/server')]);
  });

  it('holds every export target, their types, the bin and the CLI bundle', () => {
    for (const path of ['bin/passlane.js', 'dist/cli/passlane.js', 'LICENSE', ...exportTargets(pkg)]) expect(files).toContain(path);
  });

  it('holds no sources, bench modules, repository tools or Lambda entry points', () => {
    expect(sources(files)).toEqual([]);
    // The bench engine is inlined in the CLI bundle only; no file of its own may ship.
    expect(files.filter((path) => /bench/i.test(path))).toEqual([]);
    expect(files.filter((path) => /^(src|test|functions|scripts|infra|docs)\//.test(path))).toEqual([]);
    // `npm start`'s local server (dynalite, a dev dependency) and the runtimes' bundle builds (esbuild).
    expect(files.filter((path) => /^dist\/runtimes\/(node\/local-server|[a-z-]+\/build-)/.test(path))).toEqual([]);
    expect(files.filter((path) => path.startsWith('.'))).toEqual([]);
    expect(pkg.dependencies.passlane).toBe(pkg.version);
  });

  it('runs the bin with node: shebang, and `bench --help`', async () => {
    for (const bin of Object.values(pkg.bin ?? {})) {
      const path = join(ROOT, 'packages/server', bin);
      expect(await readFile(path, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
      const answer = await runNode(['--no-warnings', path, 'bench', '--help']);
      expect(answer.code).toBe(0);
      expect(answer.stdout).toMatch(/^usage: passlane bench/);
    }
  });
});

/** The README's pack command, as a reader runs it in the clone (the tests add --ignore-scripts and --json). */
const README_PACK = 'npm pack --workspace packages/passlane --workspace packages/server --pack-destination';

describe('both packages, packed as the README says and installed in fresh projects', () => {
  let dir: string;
  let coreOnly: string;
  let both: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passlane-consumer-'));
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(README_PACK);
    const tarballs = join(dir, 'tarballs');
    await mkdir(tarballs);
    // --ignore-scripts: `prepare` would rebuild dist/ under the other tests' feet (npm test built it).
    const { stdout } = await run('npm', [...README_PACK.split(' ').slice(1), tarballs, '--ignore-scripts', '--json'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    const packed = Object.fromEntries((JSON.parse(stdout) as { name: string; filename: string }[]).map((pkg) => [pkg.name, join(tarballs, pkg.filename)]));
    // The file names the README installs.
    expect(Object.values(packed).map((file) => file.slice(tarballs.length + 1)).sort()).toEqual(['passlane-0.1.0.tgz', 'passlane-server-0.1.0.tgz']);
    const project = async (name: string, tgz: string[]) => {
      const at = join(dir, name);
      await mkdir(at);
      await writeFile(join(at, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
      // The registry only for what this machine's npm cache lacks; the packages from their tarballs.
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tgz], { cwd: at, maxBuffer: 64 * 1024 * 1024 });
      return at;
    };
    [coreOnly, both] = await Promise.all([project('core-only', [packed.passlane!]), project('both', [packed.passlane!, packed['@passlane/server']!])]);
  }, 300_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the core alone: hashes and verifies with passlane, and brings no server code', async () => {
    const script = `
      import { createPasswordHasher } from 'passlane';
      const hasher = createPasswordHasher();
      const stored = await hasher.hash('correct horse battery staple');
      const { ok } = await hasher.verify(stored, 'correct horse battery staple');
      console.log(JSON.stringify({ ok, scheme: stored.split('$')[1] }));`;
    const answer = await runNode(['--input-type=module', '--no-warnings', '-e', script], { cwd: coreOnly });
    expect(answer.stderr).toBe('');
    expect(JSON.parse(answer.stdout)).toEqual({ ok: true, scheme: 'argon2id' });
    const installed = await readdir(join(coreOnly, 'node_modules'));
    expect(installed.filter((name) => /^(@passlane|@aws-sdk|hono|@middy|@aws-lambda-powertools)$/.test(name))).toEqual([]);
  });

  it('both: hashes with passlane, and loads the server\'s subpaths and its CLI', async () => {
    const script = `
      import { createPasswordHasher } from 'passlane';
      import { createApi } from '@passlane/server/api';
      import { ensureTable } from '@passlane/server/storage';
      const hasher = createPasswordHasher();
      const stored = await hasher.hash('correct horse battery staple');
      const { ok } = await hasher.verify(stored, 'correct horse battery staple');
      console.log(JSON.stringify({ ok, scheme: stored.split('$')[1], api: typeof createApi, storage: typeof ensureTable }));`;
    const answer = await runNode(['--input-type=module', '--no-warnings', '-e', script], { cwd: both, env: { POWERTOOLS_METRICS_DISABLED: 'true' } });
    expect(answer.stderr).toBe('');
    expect(JSON.parse(answer.stdout)).toEqual({ ok: true, scheme: 'argon2id', api: 'function', storage: 'function' });
    const cli = await runNode(['--no-warnings', join(both, 'node_modules/.bin/passlane'), 'bench', '--help'], { cwd: both });
    expect(cli.stdout).toMatch(/^usage: passlane bench/);
  });
});
