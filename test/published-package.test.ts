/**
 * What `npm publish` would ship of each package, read from `npm pack --dry-run` over the built
 * dist/ (npm test builds first): the hashing core (`passlane`) with its types and WASM, and the
 * server (`@passlane/server`) with its subpaths and the CLI bundle; nothing else (no TypeScript
 * sources, tests, bench modules or Lambda entry points). Then both are packed for real and
 * installed in a fresh project, which hashes a password with the one and loads the other.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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

  it('holds every export target, their types and the CLI with its WASM', () => {
    for (const path of ['dist/cli/passlane.js', 'dist/cli/argon2.wasm', 'LICENSE', ...exportTargets(pkg)]) expect(files).toContain(path);
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

describe('both packages, packed and installed in a fresh project', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passlane-consumer-'));
    const packed: string[] = [];
    for (const pkg of ['packages/passlane', 'packages/server']) {
      const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: join(ROOT, pkg), maxBuffer: 16 * 1024 * 1024 });
      packed.push(join(dir, (JSON.parse(stdout) as { filename: string }[])[0]!.filename));
    }
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // The registry only for what this machine's npm cache lacks; the two packages from their tarballs.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...packed], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  }, 300_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('hashes and verifies with passlane, and loads the server\'s subpaths and its CLI', async () => {
    const script = `
      import { createPasswordHasher } from 'passlane';
      import { createApi } from '@passlane/server/api';
      import { ensureTable } from '@passlane/server/storage';
      const hasher = createPasswordHasher();
      const stored = await hasher.hash('correct horse battery staple');
      const { ok } = await hasher.verify(stored, 'correct horse battery staple');
      console.log(JSON.stringify({ ok, scheme: stored.split('$')[1], api: typeof createApi, storage: typeof ensureTable }));`;
    const answer = await runNode(['--input-type=module', '--no-warnings', '-e', script], { cwd: dir, env: { POWERTOOLS_METRICS_DISABLED: 'true' } });
    expect(answer.stderr).toBe('');
    expect(JSON.parse(answer.stdout)).toEqual({ ok: true, scheme: 'argon2id', api: 'function', storage: 'function' });
    const cli = await runNode(['--no-warnings', join(dir, 'node_modules/.bin/passlane'), 'bench', '--help'], { cwd: dir });
    expect(cli.stdout).toMatch(/^usage: passlane bench/);
  });
});
