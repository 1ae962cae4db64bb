import { closeSync, createWriteStream, fchmodSync, openSync, type WriteStream } from 'node:fs';
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
  close(): Promise<void>;
}

/**
 * JSON lines, created (or truncated) when the import starts so a file left by an earlier run
 * never mixes with this one. Owner-only permissions: rows may hold hashes. Opened synchronously,
 * so a path that can't be written fails here, before any row is imported, and chmod-ed because
 * `mode` applies only when the file is created: an existing file would keep its old permissions.
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
  stream.on('error', (error) => (failed = error));
  return {
    async write(reject) {
      if (failed) throw failed;
      if (!stream.write(`${JSON.stringify(reject)}\n`)) await once(stream, 'drain');
    },
    async close() {
      if (failed) throw failed;
      await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    },
  };
}
