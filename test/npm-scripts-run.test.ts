/**
 * Runs, through npm as a user would, every script test/support/npm-scripts.ts marks `run`: each
 * in a quick form (one round, a check mode, a dry run), each must exit 0 and print what a
 * working run prints. About half a minute on 2 cores; nothing here is timed.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NPM_SCRIPT_COVERAGE, type QuickRun } from './support/npm-scripts.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** The environment a user's shell would give: this test runner's own variables left out. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^(VITEST|NODE_ENV$|TEST$)/.test(name)) env[name] = value;
  return { ...env, NO_COLOR: '1', FORCE_COLOR: '0', ...extra };
}

function npmRun(name: string, args: string[], env: Record<string, string> | undefined): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', name, ...(args.length > 0 ? ['--', ...args] : [])], { cwd: ROOT, env: userEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const runs = Object.entries(NPM_SCRIPT_COVERAGE).flatMap(([name, coverage]) => ('run' in coverage ? [[name, coverage.run] as [string, QuickRun]] : []));

describe('npm scripts, run in a quick form', () => {
  it.each(runs)('npm run %s', async (name, quick) => {
    const tmp = await mkdtemp(join(tmpdir(), `passlane-npm-${name.replace(/\W/g, '-')}-`));
    dirs.push(tmp);
    const run = await npmRun(name, quick.args?.(tmp) ?? [], quick.env);
    const shown = `exit ${run.code}\n--- stdout\n${run.stdout.slice(-3000)}\n--- stderr\n${run.stderr.slice(-3000)}`;
    expect(run.code, shown).toBe(0);
    expect(run.stdout, shown).toMatch(quick.expect);
    quick.check?.(run.stdout);
  }, 180_000);
});
