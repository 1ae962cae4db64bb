import { PasslaneError } from 'passlane/common';

/** What an import did, so far: reported by progress, the result and an abort. */
export interface ImportCounts {
  /** Rows read (blank lines and the CSV header not counted). */
  rows: number;
  imported: number;
  /** An account with that email already existed: left untouched. */
  skipped: number;
  rejected: number;
}

/** Why a row was not imported; written to the rejects file with the row's line number. */
export type ImportRejectCode =
  | 'ERR_IMPORT_ROW_MALFORMED'
  | 'ERR_IMPORT_ROW_TOO_LONG'
  | 'ERR_IMPORT_EMAIL_INVALID'
  | 'ERR_IMPORT_HASH_MISSING'
  | 'ERR_IMPORT_HASH_PEPPERED'
  | 'ERR_IMPORT_USER_ID_INVALID'
  | 'ERR_IMPORT_USER_ID_TAKEN'
  | 'ERR_IMPORT_CREATED_AT_INVALID'
  | 'ERR_IMPORT_DUPLICATE_EMAIL'
  | 'ERR_IMPORT_DUPLICATE_USER_ID'
  // The hasher's own codes for a stored value it refuses (format, parse, bounds).
  | 'ERR_HASH_UNSUPPORTED'
  | 'ERR_HASH_MALFORMED'
  | 'ERR_HASH_PARAMS_OUT_OF_BOUNDS';

/** One row refused. Messages never contain the hash or the email. */
export class ImportRowRejectedError extends PasslaneError {
  constructor(
    override readonly code: ImportRejectCode,
    message: string,
  ) {
    super(message);
  }
}

/** The file as a whole can't be imported (unknown format, CSV header without email or hash). */
export class ImportFileInvalidError extends PasslaneError {
  override readonly code = 'ERR_IMPORT_FILE_INVALID';
}

/**
 * Storage failed after the SDK's retries; the import stopped. Re-running the same file is safe:
 * rows already imported are skipped.
 */
export class ImportAbortedError extends PasslaneError {
  override readonly code = 'ERR_IMPORT_ABORTED';

  constructor(
    readonly line: number,
    /** What was done before it stopped. */
    readonly counts: Readonly<ImportCounts>,
    options: { cause: unknown },
  ) {
    super(`import stopped at line ${line}: ${options.cause instanceof Error ? options.cause.message : 'storage failed'}`, options);
  }
}
