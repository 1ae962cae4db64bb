import { HasherOverloadedError, InvalidPasswordError } from 'passlane/common';
import { StorageUnavailableError } from '../storage/errors.js';
import { InvalidRequestError, TemporarilyUnavailableError } from './errors.js';

/** Seconds a client should wait after a storage fault: the SDK has already retried with backoff. */
const STORAGE_RETRY_AFTER_SECONDS = 2;

/**
 * Runs a step and turns the lower layers' typed errors into use-case errors: a bad password
 * into 400, an overloaded hasher or unavailable storage into 503. Anything else propagates.
 */
export async function translateErrors<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof InvalidPasswordError) throw new InvalidRequestError(error.message, 'password');
    if (error instanceof HasherOverloadedError) throw new TemporarilyUnavailableError(error.retryAfterSeconds, { cause: error });
    if (error instanceof StorageUnavailableError) throw new TemporarilyUnavailableError(STORAGE_RETRY_AFTER_SECONDS, { cause: error });
    throw error;
  }
}
