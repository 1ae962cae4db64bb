import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ImportFileInvalidError, ImportRowRejectedError } from './errors.js';
import type { ImportFormat } from './import-format.js';
import { parseCsv } from './parse-csv.js';
import { splitLines } from './split-lines.js';

/** Far above any valid row (hashes are at most 1024 characters); bounds memory on a broken file. */
export const MAX_ROW_CHARS = 64 * 1024;

/** One row of the file: its fields, or why it could not be read as a row at all. */
export interface ImportRecord {
  line: number;
  /** The row as written, for the rejects file (the operator's own data). */
  raw: string;
  fields?: Record<string, unknown>;
  rejected?: ImportRowRejectedError;
}

export interface ImportFile {
  records: AsyncIterable<ImportRecord>;
  totalBytes: number;
  bytesRead(): number;
  /** Closes the file without reading it (iterating `records` to the end, or stopping early, closes it too). */
  close(): void;
}

/** CSV columns import knows; header names match case-insensitively, other columns are ignored. */
const CSV_COLUMNS = ['email', 'hash', 'userId', 'createdAt'] as const;

/** Streams the file: rows are parsed as they are read, never the whole file at once. */
export async function openImportFile(path: string, format: ImportFormat): Promise<ImportFile> {
  const { size } = await stat(path);
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  const chunks = withoutBom(stream as AsyncIterable<string>);
  return {
    records: format === 'jsonl' ? jsonlRecords(chunks) : csvRecords(chunks),
    totalBytes: size,
    bytesRead: () => stream.bytesRead,
    close: () => stream.destroy(),
  };
}

async function* withoutBom(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let first = true;
  for await (const chunk of chunks) {
    yield first && chunk.startsWith('\uFEFF') ? chunk.slice(1) : chunk;
    first = false;
  }
}

export async function* jsonlRecords(chunks: AsyncIterable<string>): AsyncGenerator<ImportRecord> {
  for await (const { line, text, tooLong } of splitLines(chunks, MAX_ROW_CHARS)) {
    if (text.trim() === '' && !tooLong) continue;
    if (tooLong) {
      yield { line, raw: text, rejected: new ImportRowRejectedError('ERR_IMPORT_ROW_TOO_LONG', `row is longer than ${MAX_ROW_CHARS} characters`) };
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      yield { line, raw: text, rejected: new ImportRowRejectedError('ERR_IMPORT_ROW_MALFORMED', 'row is not valid JSON') };
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      yield { line, raw: text, rejected: new ImportRowRejectedError('ERR_IMPORT_ROW_MALFORMED', 'row must be a JSON object') };
      continue;
    }
    yield { line, raw: text, fields: value as Record<string, unknown> };
  }
}

export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<ImportRecord> {
  let columns: Array<(typeof CSV_COLUMNS)[number] | undefined> | undefined;
  for await (const record of parseCsv(chunks, MAX_ROW_CHARS)) {
    if (!columns) {
      if (record.error) throw new ImportFileInvalidError('the CSV header row is malformed');
      columns = record.fields.map((name) => CSV_COLUMNS.find((known) => known.toLowerCase() === name.trim().toLowerCase()));
      for (const required of ['email', 'hash'] as const) {
        if (!columns.includes(required)) throw new ImportFileInvalidError(`the CSV header row has no "${required}" column`);
      }
      continue;
    }
    const { line, raw } = record;
    if (record.error) {
      const rejected =
        record.error === 'too-long'
          ? new ImportRowRejectedError('ERR_IMPORT_ROW_TOO_LONG', `row is longer than ${MAX_ROW_CHARS} characters`)
          : new ImportRowRejectedError('ERR_IMPORT_ROW_MALFORMED', `row is not valid CSV (${record.error})`);
      yield { line, raw, rejected };
      continue;
    }
    if (record.fields.length !== columns.length) {
      const message = `row has ${record.fields.length} fields; the header has ${columns.length}`;
      yield { line, raw, rejected: new ImportRowRejectedError('ERR_IMPORT_ROW_MALFORMED', message) };
      continue;
    }
    const fields: Record<string, unknown> = {};
    columns.forEach((name, i) => {
      // An empty CSV field is an absent value (optional columns).
      if (name !== undefined && record.fields[i] !== '') fields[name] = record.fields[i];
    });
    yield { line, raw, fields };
  }
  if (!columns) throw new ImportFileInvalidError('the CSV file is empty (it needs a header row)');
}
