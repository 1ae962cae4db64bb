import { HasherOverloadedError, InvalidPasswordError } from 'passlane/common';
import { StorageUnavailableError } from '../storage/errors.js';
import { InvalidRequestError, TemporarilyUnavailableError } from './errors.js';

/** Seconds a client should wait after a storage fault: the SDK has already retried with backoff. */
export const STORAGE_RETRY_AFTER_SECONDS = 2;

/**
 * The lower layers' errors that have an answer, as the server's own: a password the hasher
 * refuses is an invalid request, an overloaded hasher or unavailable storage is "try again".
 * Anything else is returned as it is. Use cases throw their errors as they are: this is applied
 * once, where an error meets its host (the API's map-error.ts); the CLI and the jobs name the
 * lower layers' errors themselves (cli/commands/command-io.ts, storage-hint.ts).
 */
export function translateError(error: unknown): unknown {
  if (error instanceof InvalidPasswordError) return new InvalidRequestError(error.message, 'password');
  if (error instanceof HasherOverloadedError) return new TemporarilyUnavailableError(error.retryAfterSeconds, { cause: error });
  if (error instanceof StorageUnavailableError) return new TemporarilyUnavailableError(STORAGE_RETRY_AFTER_SECONDS, { cause: error });
  return error;
}
