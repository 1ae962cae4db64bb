import { HasherOverloadedError, InvalidPasswordError } from 'passlane/common';
import { StorageUnavailableError } from '../storage/errors.js';
import { InvalidRequestError, TemporarilyUnavailableError } from './errors.js';

/** Seconds a client should wait after a storage fault: the SDK has already retried with backoff. */
export const STORAGE_RETRY_AFTER_SECONDS = 2;

/**
 * The lower layers' errors that have an answer, as the server's own: a password the hasher
 * refuses is an invalid request, an overloaded hasher or unavailable storage is "try again".
 * Anything else is returned as it is. The one translation: use cases apply it to their steps
 * (translateErrors), and the API to whatever escaped one (map-error.ts).
 */
export function translateError(error: unknown): unknown {
  if (error instanceof InvalidPasswordError) return new InvalidRequestError(error.message, 'password');
  if (error instanceof HasherOverloadedError) return new TemporarilyUnavailableError(error.retryAfterSeconds, { cause: error });
  if (error instanceof StorageUnavailableError) return new TemporarilyUnavailableError(STORAGE_RETRY_AFTER_SECONDS, { cause: error });
  return error;
}

/** Runs a use case's step, throwing its errors translated (translateError). */
export async function translateErrors<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw translateError(error);
  }
}
