import { PasslaneError } from 'passlane/common';

/** A cursor that is not one this job wrote (truncated, edited, or from another version). */
export class RehashCursorInvalidError extends PasslaneError {
  override readonly code = 'ERR_REHASH_CURSOR_INVALID';
}

/** The job's input (Lambda event or CLI options) is out of range or of the wrong type. */
export class RehashInputInvalidError extends PasslaneError {
  override readonly code = 'ERR_REHASH_INPUT_INVALID';
}
