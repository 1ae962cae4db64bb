import type { JWK } from 'jose';
import { TokenConfigError } from './errors.js';
import { DEFAULT_SIGNING_ALGORITHM, generateSigningKey, type SigningAlgorithm } from './keys.js';

/**
 * Local runs only: a signing key generated once and kept in the data directory, so tokens survive
 * a restart. The only token code that touches the filesystem. It reaches `node:fs` through
 * `process.getBuiltinModule` rather than an import, so bundling the token code for Workers pulls
 * in no `node:` module; the service never calls this where there is no filesystem (or on Lambda).
 */
export const LOCAL_SIGNING_KEY_FILE = 'jwt-signing-key.json';

export interface LocalSigningKey {
  privateJwk: JWK;
  path: string;
  /** True when this call generated the key (worth a log line: tokens from before are now invalid). */
  created: boolean;
}

export async function loadOrCreateLocalSigningKey(
  dataDir: string,
  options: { algorithm?: SigningAlgorithm } = {},
): Promise<LocalSigningKey> {
  const { fs, path } = nodeBuiltins();
  const file = path.join(dataDir, LOCAL_SIGNING_KEY_FILE);
  const existing = await readKeyFile(fs, file);
  if (existing !== undefined) return { privateJwk: existing, path: file, created: false };

  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const privateJwk = await generateSigningKey(options.algorithm ?? DEFAULT_SIGNING_ALGORITHM);
  // Written whole under a temporary name (mode 0600 from the first byte), then hard-linked into
  // place: link fails if the file exists, so two processes starting at once agree on one key and
  // neither reads a half-written file.
  const temporary = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    await fs.writeFile(temporary, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await fs.link(temporary, file);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw new TokenConfigError(`cannot write ${file} (${errorCode(error) ?? 'error'})`);
    const winner = await readKeyFile(fs, file);
    if (winner === undefined) throw new TokenConfigError(`cannot read ${file}`);
    return { privateJwk: winner, path: file, created: false };
  } finally {
    await fs.rm(temporary, { force: true });
  }
  return { privateJwk, path: file, created: true };
}

type Fs = typeof import('node:fs/promises');

async function readKeyFile(fs: Fs, file: string): Promise<JWK | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw new TokenConfigError(`cannot read ${file} (${errorCode(error) ?? 'error'})`);
  }
  await restrictPermissions(fs, file);
  try {
    return JSON.parse(text) as JWK;
  } catch {
    // Not regenerated silently: the file is the user's, and a new key would void every token.
    throw new TokenConfigError(`${file} is not valid JSON; delete it to generate a new key`);
  }
}

/** A copied or hand-made file may be group/world-readable; a private key should not be. */
async function restrictPermissions(fs: Fs, file: string): Promise<void> {
  if (globalThis.process?.platform === 'win32') return; // no POSIX modes there
  const { mode } = await fs.stat(file);
  if ((mode & 0o077) !== 0) await fs.chmod(file, 0o600);
}

function nodeBuiltins(): { fs: Fs; path: typeof import('node:path') } {
  const getBuiltinModule = globalThis.process?.getBuiltinModule;
  if (typeof getBuiltinModule !== 'function') {
    throw new TokenConfigError('no filesystem for a local signing key here (needs Node.js 20.16+); set PASSLANE_JWT_PRIVATE_KEY');
  }
  return { fs: process.getBuiltinModule('node:fs/promises'), path: process.getBuiltinModule('node:path') };
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
