/**
 * Local runs only: a secret generated once and kept in the data directory (the JWT signing key,
 * the email fingerprint key), so it survives a restart. It reaches `node:fs` through
 * `process.getBuiltinModule` rather than an import, so bundles for Workers pull in no `node:`
 * module; services never call this where there is no filesystem (or on Lambda).
 */
import { detectRuntime, type RuntimeName } from 'passlane/runtime';
import { makeDirectory } from './make-directory.js';

/**
 * Where a secret must not be generated, or undefined where it may (a developer's Node, Bun or
 * Deno): on Lambda a generated secret would differ per container and vanish with it; edge
 * runtimes have no filesystem to keep one in.
 */
export function localSecretsRefusedOn(onLambda: boolean): 'lambda' | RuntimeName | undefined {
  const runtime = detectRuntime();
  if (onLambda || runtime === 'lambda') return 'lambda';
  return runtime === 'node' || runtime === 'bun' || runtime === 'deno' ? undefined : runtime;
}

export interface LocalSecret {
  text: string;
  path: string;
  /** True when this call generated it (worth a log line: what depended on the old one is void). */
  created: boolean;
}

/**
 * The file's text, or `generate()`'s written whole under a temporary name (mode 0600 from the
 * first byte) and hard-linked into place: link fails if the file exists, so two processes
 * starting at once agree on one secret and neither reads a half-written file. `fail` makes the
 * caller's typed error from a message (which names the file, never its contents).
 */
export async function readOrCreateLocalSecret(
  dataDir: string,
  fileName: string,
  generate: () => Promise<string>,
  fail: (message: string) => Error,
): Promise<LocalSecret> {
  const { fs, path } = nodeBuiltins(fail);
  const file = path.join(dataDir, fileName);
  const existing = await readSecretFile(fs, file, fail);
  if (existing !== undefined) return { text: existing, path: file, created: false };

  try {
    await makeDirectory(fs, dataDir);
  } catch (error) {
    throw fail(`cannot create the directory ${dataDir} for ${fileName} (${errorCode(error) ?? (error instanceof Error ? error.name : 'error')})`);
  }
  const text = await generate();
  const temporary = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    await fs.writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
    await fs.link(temporary, file);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw fail(`cannot write ${file} (${errorCode(error) ?? 'error'})`);
    const winner = await readSecretFile(fs, file, fail);
    if (winner === undefined) throw fail(`cannot read ${file}`);
    return { text: winner, path: file, created: false };
  } finally {
    await fs.rm(temporary, { force: true });
  }
  return { text, path: file, created: true };
}

type Fs = typeof import('node:fs/promises');

async function readSecretFile(fs: Fs, file: string, fail: (message: string) => Error): Promise<string | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw fail(`cannot read ${file} (${errorCode(error) ?? 'error'})`);
  }
  await restrictPermissions(fs, file);
  return text;
}

/** A copied or hand-made file may be group/world-readable; a secret should not be. */
async function restrictPermissions(fs: Fs, file: string): Promise<void> {
  if (globalThis.process?.platform === 'win32') return; // no POSIX modes there
  const { mode } = await fs.stat(file);
  if ((mode & 0o077) !== 0) await fs.chmod(file, 0o600);
}

function nodeBuiltins(fail: (message: string) => Error): { fs: Fs; path: typeof import('node:path') } {
  const getBuiltinModule = globalThis.process?.getBuiltinModule;
  if (typeof getBuiltinModule !== 'function') throw fail('no filesystem for a local secret here (needs Node.js 20.16+)');
  return { fs: process.getBuiltinModule('node:fs/promises'), path: process.getBuiltinModule('node:path') };
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
