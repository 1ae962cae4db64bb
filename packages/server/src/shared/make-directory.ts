/**
 * `mkdir -p` without Node's `{ recursive: true }`, which never returns on some paths it cannot
 * create (Node 20, 22 and 24: `/proc/nope` spins at full CPU with no error). Here each missing parent is made
 * in turn, at most once per level, so a path that cannot be made fails with the file system's
 * code (ENOENT, EACCES, EROFS; Deno's NotCapable) instead of hanging the start.
 */
type Fs = Pick<typeof import('node:fs/promises'), 'mkdir' | 'stat'>;

export async function makeDirectory(fs: Fs, dir: string, mode = 0o700): Promise<void> {
  try {
    await fs.mkdir(dir, { mode });
    return;
  } catch (error) {
    if (codeOf(error) === 'EEXIST') {
      if (await isDirectory(fs, dir)) return;
      throw Object.assign(new Error(`${dir} exists and is not a directory`), { code: 'ENOTDIR' });
    }
    if (codeOf(error) !== 'ENOENT' || parentOf(dir) === dir) throw error;
  }
  await makeDirectory(fs, parentOf(dir), mode);
  try {
    await fs.mkdir(dir, { mode });
  } catch (error) {
    // Made meanwhile by another process: as good as made here.
    if (codeOf(error) !== 'EEXIST' || !(await isDirectory(fs, dir))) throw error;
  }
}

async function isDirectory(fs: Fs, path: string): Promise<boolean> {
  try {
    return (await fs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Without node:path, which an edge bundle must not import: `/a/b/` -> `/a`, `a` -> `.`, `/` -> `/`. */
function parentOf(dir: string): string {
  const trimmed = dir.replace(/[/\\]+$/, '');
  if (trimmed === '') return dir.slice(0, 1) || '.';
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  if (cut < 0) return '.';
  return cut === 0 ? trimmed.slice(0, 1) : trimmed.slice(0, cut);
}

export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
