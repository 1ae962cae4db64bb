import { createWriteStream, type WriteStream } from 'node:fs';
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
 * never mixes with this one. Owner-only permissions: rows may hold hashes.
 */
export function openRejectsFile(path: string): RejectsFile {
  const stream: WriteStream = createWriteStream(path, { flags: 'w', mode: 0o600 });
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
