import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs Node with `args`, feeding `stdin` (or none) and collecting both streams. Asynchronous on
 * purpose: the DynamoDB server under test may live in this very process (dynalite). `node`: another
 * Node binary than the one running the tests (test/core-oldest-node.test.ts).
 */
export function runNode(args: string[], options: { stdin?: string; env?: Record<string, string>; cwd?: string; node?: string } = {}): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, args, {
      cwd: options.cwd,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A child that exits before reading all of stdin (on purpose, in some tests) closes the pipe.
    child.stdin?.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin?.end(options.stdin);
  });
}

/** The built bin, as `npm test` builds it first: this is what `passlane` runs once installed. */
export const PASSLANE_BIN = fileURLToPath(new URL('../../packages/server/dist/cli/passlane.js', import.meta.url));

export function runPasslane(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<ProcessRun> {
  if (!existsSync(PASSLANE_BIN)) throw new Error(`${PASSLANE_BIN} is missing: run npm run build (npm test does)`);
  return runNode(['--no-warnings', PASSLANE_BIN, ...args], options);
}
