/** Helpers for the packaging tests: run the packaging script (or package the template alone), read zips, time imports. */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { unzipSync, zipSync } from 'fflate';
import type { LambdaArchitecture } from '../../scripts/packaging/architectures.js';
import { BUNDLE_FILE, LAMBDA_FUNCTIONS } from '../../scripts/packaging/lambda-functions.js';

const execFileAsync = promisify(execFile);
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * What `npm run package -- --arch <arch> --package <dir>` runs: the zips into .package/<arch>/,
 * the CloudFormation template into `dir`. `env` is added to the child's environment.
 */
export async function runPackaging(arch: LambdaArchitecture, templateDir: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--conditions=passlane-source', '--import', 'tsx', join(repoRoot, 'scripts/package-functions.ts'), '--arch', arch, '--package', templateDir],
    { cwd: repoRoot, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
  );
  return stdout;
}

/**
 * The CloudFormation template alone, as `serverless package` (osls) writes it for this service,
 * in a few seconds: serverless.yml and infra/ copied into `workDir` with a placeholder zip per
 * function, so neither the bundles are built nor .package/ and the service directory are
 * touched (a concurrent `npm run package` or packaging test is not disturbed). The template is
 * the real one in everything but what depends on the code (S3 keys, version ids). Returns the
 * parsed update-stack template.
 */
export async function packageTemplateOnly(workDir: string, env: Record<string, string>, args: string[] = []): Promise<unknown> {
  const arch: LambdaArchitecture = 'arm64';
  cpSync(join(repoRoot, 'serverless.yml'), join(workDir, 'serverless.yml'));
  cpSync(join(repoRoot, 'infra'), join(workDir, 'infra'), { recursive: true });
  mkdirSync(join(workDir, '.package', arch), { recursive: true });
  for (const fn of LAMBDA_FUNCTIONS) {
    writeFileSync(join(workDir, '.package', arch, `${fn.name}.zip`), zipSync({ [BUNDLE_FILE]: new TextEncoder().encode('export const handler = () => {};\n') }));
  }
  const serverless = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
  await execFileAsync(process.execPath, [serverless, 'package', `--param=arch=${arch}`, '--package', join(workDir, 'out'), ...args], {
    cwd: workDir,
    env: { ...process.env, ...env, PASSLANE_ARCH: arch, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(readFileSync(join(workDir, 'out', 'cloudformation-template-update-stack.json'), 'utf8'));
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
