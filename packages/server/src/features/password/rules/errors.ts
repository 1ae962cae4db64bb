import { PasslaneError } from 'passlane/common';

/** This host was built without the blocklist (the login function never sets a password), or it failed to load. */
export class BlocklistUnavailableError extends PasslaneError {
  override readonly code = 'ERR_BLOCKLIST_UNAVAILABLE';
}

/** The blocklist asset does not decode: a build or packaging fault, never a user's doing. */
export class BlocklistFormatError extends PasslaneError {
  override readonly code = 'ERR_BLOCKLIST_FORMAT';
}

/** The breach check could not answer (timeout, network, an unexpected status) and is configured to fail closed. */
export class BreachCheckUnavailableError extends PasslaneError {
  override readonly code = 'ERR_BREACH_CHECK_UNAVAILABLE';
}
