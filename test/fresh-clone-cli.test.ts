/**
 * The README's first command on a fresh clone: `npm ci`, then `npx passlane keygen`. npm links
 * the workspaces' bins before the root `prepare` builds dist/, so the bin must be a file of the
 * repository (packages/server/bin/passlane.js) that loads the built CLI. The clone is the
 * repository's files as git knows them (tracked and new, nothing ignored: no node_modules, no
 * dist), installed with npm ci from this machine's npm cache where it can. A few minutes: most of
 * it is npm ci's install and build, which no shortcut would test.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** The environment a user's shell would give: this test runner's own variables left out. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^(VITEST|NODE_ENV$|TEST$|npm_)/.test(name)) env[name] = value;
  return { ...env, NO_COLOR: '1' };
}

/** `command` in a shell at `cwd`, as a reader types it. */
function shell(command: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The repository's files as a fresh clone has them: tracked and new ones, none that git ignores. */
async function freshClone(into: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  for (const path of new Set(stdout.split('\0').filter(Boolean))) {
    if (!existsSync(join(ROOT, path))) continue; // deleted in the working tree, not yet committed
    await mkdir(dirname(join(into, path)), { recursive: true });
    await copyFile(join(ROOT, path), join(into, path));
  }
}

describe('a fresh clone, as the README says', () => {
  let dir: string;
  let install: { code: number | null; stdout: string; stderr: string };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passlane-fresh-clone-'));
    await freshClone(dir);
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
    expect(existsSync(join(dir, 'packages/server/dist'))).toBe(false);
    // --prefer-offline: the registry only for what this machine's npm cache lacks.
    install = await shell('npm ci --prefer-offline --no-audit --no-fund', dir);
  }, 900_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('npm ci builds both packages, links the passlane bin, and warns of no unreviewed install script', () => {
    expect(install.code, install.stderr.slice(-3000)).toBe(0);
    for (const built of ['packages/passlane/dist/index.js', 'packages/server/dist/cli/passlane.js']) expect(existsSync(join(dir, built)), built).toBe(true);
    expect(existsSync(join(dir, 'node_modules/.bin/passlane'))).toBe(true);
    // package.json's allowScripts covers every dependency's install script: no unexplained warnings.
    expect(install.stderr).not.toMatch(/install-scripts|allowScripts/);
  });

  it('npx passlane keygen prints new keys, and --version the package version', async () => {
    const keygen = await shell('npx passlane keygen', dir);
    expect(keygen.code, keygen.stderr).toBe(0);
    for (const name of ['PASSLANE_JWT_PRIVATE_KEY', 'PASSLANE_FINGERPRINT_KEY', 'PASSLANE_PEPPER_KEYS', 'PASSLANE_MFA_KEYS']) expect(keygen.stdout).toMatch(new RegExp(`^${name}='`, 'm'));
    const version = await shell('npx passlane --version', dir);
    expect(version.stdout.trim()).toBe('passlane 0.1.0');
  });
});
