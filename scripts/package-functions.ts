/**
 * `npm run package [-- --arch arm64|x86_64] [--external-aws-sdk] [--zips-only] [serverless options]`
 *
 * Bundles every function with esbuild into `.package/<arch>/<name>.zip`, then runs
 * `serverless package` (osls, Serverless Framework v3), which writes the CloudFormation template
 * to `.serverless/` (or `--package <dir>`) and points each function at its zip. No AWS access.
 * `--zips-only` stops after the zips: what the CDK construct (passlane/cdk) deploys.
 *
 * Why our own script and not the serverless-esbuild plugin: the plugin packs node_modules by
 * running `npm install`/`npm prune` in its build folder, which swaps the @node-rs binary back to
 * the build machine's CPU (an x86-64 `.node` in an arm64 function fails only when Lambda loads
 * it). Here the binary for the target architecture is chosen explicitly, its ELF machine is
 * checked before zipping, and node_modules and the lock file are never touched.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArchitecture, type LambdaArchitecture } from './packaging/architectures.js';
import { bundleFunction } from './packaging/bundle-function.js';
import { LAMBDA_FUNCTIONS } from './packaging/lambda-functions.js';
import { resolveBindingPackages } from './packaging/native-packages.js';
import { renderServerlessInfra } from './packaging/serverless-infra.js';
import { zipFiles } from './packaging/zip-directory.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Git-ignored: the zips per architecture (`<arch>/`) and the fetched binary packages (`native-cache/`). */
export const PACKAGE_DIR = join(root, '.package');

export interface PackagedFunction {
  name: string;
  zip: string;
  zipBytes: number;
  files: string[];
  nativeBinaries: string[];
}

interface Options {
  arch: LambdaArchitecture;
  externalAwsSdk: boolean;
  zipsOnly: boolean;
  serverlessArgs: string[];
}

/** The zips go to `.package/<arch>/` unless `zipDir` names another folder (serverless-offline's copy of the service). */
export async function packageFunctions(arch: LambdaArchitecture, options: { externalAwsSdk?: boolean; zipDir?: string } = {}): Promise<PackagedFunction[]> {
  const zipDir = options.zipDir ?? join(PACKAGE_DIR, arch);
  rmSync(zipDir, { recursive: true, force: true });
  mkdirSync(zipDir, { recursive: true });
  // Bundles are staged outside the repository, so linters and tests never pick them up.
  const buildDir = mkdtempSync(join(tmpdir(), `passlane-package-${arch}-`));
  try {
    const bindings = resolveBindingPackages(root, arch, join(PACKAGE_DIR, 'native-cache'));
    const packaged = await Promise.all(
      LAMBDA_FUNCTIONS.map(async (fn) => {
        const outDir = join(buildDir, fn.name);
        const bundle = await bundleFunction(fn, { root, outDir, arch, bindings, externalAwsSdk: options.externalAwsSdk ?? false });
        const zip = join(zipDir, `${fn.name}.zip`);
        const zipBytes = zipFiles(outDir, bundle.files, zip);
        return { name: fn.name, zip, zipBytes, files: bundle.files, nativeBinaries: bundle.nativeBinaries };
      }),
    );
    writeFileSync(join(zipDir, 'manifest.json'), `${JSON.stringify({ arch, functions: packaged }, null, 2)}\n`);
    return packaged;
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
}

/**
 * The generated infra files (functions and roles) that differ from what packages/server/src/cdk/functions.ts
 * generates: packaging them would deploy another service than the CDK construct does.
 */
export function staleInfraFiles(): string[] {
  return Object.entries(renderServerlessInfra())
    .filter(([path, content]) => !existsSync(join(root, path)) || readFileSync(join(root, path), 'utf8') !== content)
    .map(([path]) => path);
}

/** Runs osls' `serverless package` for this architecture; extra arguments pass through. */
export function runServerlessPackage(arch: LambdaArchitecture, args: string[]): number {
  const bin = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
  const result = spawnSync(process.execPath, [bin, 'package', `--param=arch=${arch}`, ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PASSLANE_ARCH: arch, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
  });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { arch: parseArchitecture(process.env.PASSLANE_ARCH), externalAwsSdk: false, zipsOnly: false, serverlessArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--arch') options.arch = parseArchitecture(argv[++i]);
    else if (arg.startsWith('--arch=')) options.arch = parseArchitecture(arg.slice('--arch='.length));
    else if (arg === '--external-aws-sdk') options.externalAwsSdk = true;
    else if (arg === '--zips-only') options.zipsOnly = true;
    else options.serverlessArgs.push(arg);
  }
  return options;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const packaged = await packageFunctions(options.arch, { externalAwsSdk: options.externalAwsSdk });
  console.log(`packaged ${packaged.length} functions for ${options.arch} in ${Math.round(performance.now() - started)} ms`);
  for (const fn of packaged) {
    console.log(`  ${fn.name.padEnd(20)} ${(fn.zipBytes / 1024).toFixed(0).padStart(6)} KiB  ${fn.files.join(' ')}`);
  }
  if (options.zipsOnly) return;
  const stale = staleInfraFiles();
  if (stale.length > 0) throw new Error(`${stale.join(' and ')} differ from packages/server/src/cdk/functions.ts: run \`npm run generate:infra\` first`);
  process.exitCode = runServerlessPackage(options.arch, options.serverlessArgs);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
