/** Helpers for test/deploy-package.test.ts: run the packaging script, read zips, time imports. */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import type { LambdaArchitecture } from '../../scripts/packaging/architectures.js';

const execFileAsync = promisify(execFile);
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * What `npm run package -- --arch <arch> --package <dir>` runs: the zips into .package/<arch>/,
 * the CloudFormation template into `dir`. `env` is added to the child's environment.
 */
export async function runPackaging(arch: LambdaArchitecture, templateDir: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'scripts/package-functions.ts'), '--arch', arch, '--package', templateDir],
    { cwd: repoRoot, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
  );
  return stdout;
}

export function readZip(file: string): Record<string, Uint8Array> {
  return unzipSync(readFileSync(file));
}

export function unpackZip(file: string, dir: string): void {
  for (const [name, bytes] of Object.entries(readZip(file))) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), bytes);
  }
}

/**
 * Milliseconds to import `file` in a fresh Node process (what a cold start pays before the
 * handler runs), the median of `runs`. Measured inside the child, so Node's own start is excluded.
 */
export async function coldImportMs(file: string, runs = 3): Promise<number> {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1' },
    });
    times.push(Number(stdout.trim()));
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;
}
