/**
 * What `npm publish` would ship, read from `npm pack --dry-run` over the built dist/ (npm test
 * builds first): the library and its types, the CLI bundle with its WASM, and nothing else: no
 * bench modules, no TypeScript sources, no tests, no Lambda entry points.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runNode } from './support/run-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface PackageJson {
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
const bins = Object.values(pkg.bin);
const exportTargets = Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)));
const normalise = (path: string): string => path.replace(/^\.\//, '');

let files: string[];

beforeAll(async () => {
  // --ignore-scripts: `prepare` would rebuild dist/ under the other tests' feet.
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--offline'], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[];
  files = packed!.files.map((file) => file.path);
});

describe('the published package (npm pack --dry-run)', () => {
  it('holds the library entries, their types, every export target and the CLI with its WASM', () => {
    const required = ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/edge.js', 'dist/src/edge.d.ts', 'dist/cli/argon2.wasm', 'LICENSE'];
    for (const path of [...required, ...exportTargets.map(normalise), ...bins.map(normalise)]) expect(files).toContain(path);
  });

  it('holds no bench modules, sources, tests or Lambda entry points', () => {
    // The bench is inlined in the CLI bundle only; no file of its own may ship.
    expect(files.filter((path) => /bench/i.test(path))).toEqual([]);
    expect(files.filter((path) => /\.(ts|mts|cts)$/.test(path) && !/\.d\.ts$/.test(path))).toEqual([]);
    expect(files.filter((path) => /^(src|test|bench|functions|scripts|infra|docs)\//.test(path))).toEqual([]);
    expect(files.filter((path) => /^dist\/(functions|worker|vercel-edge|src\/cli)\//.test(path))).toEqual([]);
    // `npm start`'s local server (with dynalite, a dev dependency) and the runtimes' bundle builds (esbuild):
    // repository tools, not the package.
    expect(files.filter((path) => /^dist\/src\/runtimes\/(node\/local-server|[a-z-]+\/build-)/.test(path))).toEqual([]);
    expect(files.filter((path) => path.startsWith('.'))).toEqual([]);
  });

  it('runs the bin with node: shebang, and `bench --help`', async () => {
    expect(bins.length).toBeGreaterThan(0);
    for (const bin of bins) {
      expect(readFileSync(join(ROOT, bin), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
      const run = await runNode(['--no-warnings', join(ROOT, bin), 'bench', '--help']);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^usage: passlane bench/);
    }
  });
});
