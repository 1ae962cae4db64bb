import type { ImportRecord } from '../../features/import/read-import-file.js';

/**
 * How far through the file an import is: the bytes of the rows handed to the import so far, over
 * the file's size. Not the stream's bytesRead, which runs up to its buffer (256 KiB) ahead of the
 * rows: a small file, or the first 256 KiB of a pipe, read as 100% from the first row on.
 */
export function trackConsumedBytes(records: AsyncIterable<ImportRecord>): { records: AsyncIterable<ImportRecord>; consumed(): number } {
  let consumed = 0;
  async function* counted(): AsyncGenerator<ImportRecord> {
    for await (const record of records) {
      // The row and its line break; blank lines and the CSV header are not counted, so it ends a little short of 100%.
      consumed += Buffer.byteLength(record.raw) + 1;
      yield record;
    }
  }
  return { records: counted(), consumed: () => consumed };
}
