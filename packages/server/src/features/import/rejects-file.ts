import { closeSync, createWriteStream, fchmodSync, openSync, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';

/** A rejected row as the operator gets it back: where, why, and the row itself to fix it. */
export interface ImportReject {
  line: number;
  code: string;
  message: string;
  /** The row as written in the import file (the operator's own data; never printed). */
  raw: string;
}

export interface RejectsFile {
  write(reject: ImportReject): Promise<void>;
  /** Ends the file; one that got no row is removed (nothing was rejected: no file to look at). */
  close(): Promise<void>;
}

/**
 * JSON lines, created (or truncated) when the import starts so a file left by an earlier run
 * never mixes with this one. Owner-only permissions: rows may hold hashes. Opened synchronously,
 * so a path that can't be written fails here, before any row is imported, and chmod-ed because
 * `mode` applies only when the file is created: an existing file would keep its old permissions.
 * Truncated, then removed at the end when this run rejected nothing, so an old file never stays.
 */
export function openRejectsFile(path: string): RejectsFile {
  const fd = openSync(path, 'w', 0o600);
  try {
    fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const stream: WriteStream = createWriteStream('', { fd });
  let failed: Error | undefined;
  let written = 0;
  stream.on('error', (error) => (failed = error));
  return {
    async write(reject) {
      if (failed) throw failed;
      written += 1;
      if (!stream.write(`${JSON.stringify(reject)}\n`)) await once(stream, 'drain');
    },
    async close() {
      if (failed) throw failed;
      await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
      if (written === 0) rmSync(path, { force: true });
    },
  };
}
