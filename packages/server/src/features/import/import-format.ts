import { extname } from 'node:path';
import { ImportFileInvalidError } from './errors.js';

export type ImportFormat = 'jsonl' | 'csv';

const BY_EXTENSION: Readonly<Record<string, ImportFormat>> = { '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.csv': 'csv' };

/** `--format` when given, else the file's extension (.jsonl, .ndjson, .csv). */
export function importFormatOf(path: string, requested?: string): ImportFormat {
  if (requested !== undefined) {
    if (requested === 'jsonl' || requested === 'csv') return requested;
    throw new ImportFileInvalidError('format must be jsonl or csv');
  }
  const format = BY_EXTENSION[extname(path).toLowerCase()];
  if (!format) throw new ImportFileInvalidError('cannot tell the format from the file name; pass --format jsonl or --format csv');
  return format;
}
