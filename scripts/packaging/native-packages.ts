/**
 * The prebuilt @node-rs binaries for one Lambda architecture, without touching node_modules or
 * the lock file: npm installs only the host's binary package, and `npm install --cpu=arm64` (or a
 * later prune) would swap the one every other command here relies on. The other architecture's
 * package is fetched with `npm pack` at the exact version and integrity the lock file records,
 * and kept in a git-ignored cache.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { NPM_CPU, type LambdaArchitecture } from './architectures.js';

/** The packages with a native binding that the bundles load. */
export const NATIVE_PACKAGES = ['@node-rs/argon2', '@node-rs/bcrypt'] as const;

export interface BindingPackage {
  /** e.g. @node-rs/argon2-linux-arm64-gnu */
  name: string;
  version: string;
  /** The unpacked package: its package.json and the `.node` file named by `main`. */
  dir: string;
  main: string;
}

/** Lambda runs Amazon Linux (glibc), so the `-gnu` builds, never `-musl`. */
export function bindingPackageName(nativePackage: string, arch: LambdaArchitecture): string {
  return `${nativePackage}-linux-${NPM_CPU[arch]}-gnu`;
}

export function resolveBindingPackages(root: string, arch: LambdaArchitecture, cacheDir: string): BindingPackage[] {
  const lock = readJson(join(root, 'package-lock.json')) as { packages?: Record<string, { version?: string; integrity?: string }> };
  return NATIVE_PACKAGES.map((nativePackage) => {
    const name = bindingPackageName(nativePackage, arch);
    const parent = readJson(join(root, 'node_modules', nativePackage, 'package.json')) as { optionalDependencies?: Record<string, string> };
    // The version the installed wrapper was published with: its loader expects exactly this build.
    const version = parent.optionalDependencies?.[name];
    if (version === undefined) throw new Error(`${nativePackage} has no optional dependency ${name}`);
    const integrity = lock.packages?.[`node_modules/${name}`]?.integrity;
    const installed = join(root, 'node_modules', name);
    const dir = installedVersion(installed) === version ? installed : fetchIntoCache(name, version, integrity, cacheDir);
    const main = (readJson(join(dir, 'package.json')) as { main?: string }).main;
    if (main === undefined || !main.endsWith('.node')) throw new Error(`${name}: package.json main is not a .node file`);
    return { name, version, dir, main };
  });
}

function fetchIntoCache(name: string, version: string, integrity: string | undefined, cacheDir: string): string {
  const target = join(cacheDir, `${name.replace('/', '+')}@${version}`);
  if (existsSync(join(target, 'package.json'))) return target;
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(cacheDir, '.fetch-'));
  try {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', `${name}@${version}`, '--json', '--pack-destination', work], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
    ) as { filename: string }[];
    if (packed === undefined) throw new Error(`npm pack ${name}@${version} produced nothing`);
    const tarball = join(work, packed.filename);
    // A binary that goes into every zip is never taken unchecked: no integrity in the lock, no package.
    if (integrity === undefined) throw new Error(`${name}@${version}: package-lock.json records no integrity to check the download against`);
    checkIntegrity(tarball, integrity, `${name}@${version}`);
    execFileSync('tar', ['-xzf', tarball, '-C', work]);
    // npm tarballs unpack into package/; the rename makes a half-fetched cache entry impossible.
    renameSync(join(work, 'package'), target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The lock file's Subresource-Integrity string (sha512-<base64>) against the fetched tarball. */
function checkIntegrity(file: string, integrity: string, label: string): void {
  const [algorithm, expected] = integrity.split(/-(.*)/s);
  if (algorithm === undefined || expected === undefined) throw new Error(`${label}: unreadable integrity ${integrity}`);
  const actual = createHash(algorithm).update(readFileSync(file)).digest('base64');
  if (actual !== expected) throw new Error(`${label}: tarball integrity ${algorithm}-${actual} does not match the lock file's ${integrity}`);
}

function installedVersion(dir: string): string | undefined {
  const file = join(dir, 'package.json');
  return existsSync(file) ? (readJson(file) as { version?: string }).version : undefined;
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}
