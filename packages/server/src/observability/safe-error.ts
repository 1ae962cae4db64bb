import { PasslaneError } from 'passlane/common';
import { MailConfigError, MailError } from '../mail/errors.js';
import { StorageError } from '../storage/errors.js';
import { TokenError } from '../features/tokens/errors.js';
import { PasslaneServerError } from '../accounts/errors.js';

/**
 * What of an error may be logged. Powertools would copy every enumerable attribute into the log
 * line (jose errors carry the decoded token payload, SDK errors the raw response), so only name,
 * code, stack frames and causes are kept. Messages are kept only where we know they are clean:
 * our own typed errors (which promise no emails, passwords, hashes or tokens) and programming
 * errors (TypeError & co.). Others, like SyntaxError from JSON.parse or SDK errors, can quote
 * their input, so their message (and the stack's first line, which repeats it) is dropped.
 */
export interface SafeErrorFields {
  name: string;
  message?: string;
  code?: string;
  stack?: string;
  cause?: SafeErrorFields;
}

// The mail errors' messages never hold the address (SES's own message stays in `cause`).
const CLEAN_MESSAGE_TYPES = [PasslaneError, PasslaneServerError, StorageError, MailError, MailConfigError, TokenError, TypeError, RangeError, ReferenceError];
/** By name where the class lives above this layer (config/, runtimes/): importing it would point up. */
const CLEAN_MESSAGE_NAMES = new Set(['ConfigError', 'SecretLoadError']);

export function safeErrorFields(error: unknown, depth = 0): SafeErrorFields {
  if (!(error instanceof Error)) return { name: typeof error };
  const fields: SafeErrorFields = { name: error.name };
  const messageIsClean = CLEAN_MESSAGE_TYPES.some((type) => error instanceof type) || CLEAN_MESSAGE_NAMES.has(error.name);
  if (messageIsClean) fields.message = error.message;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') fields.code = code;
  if (typeof error.stack === 'string') {
    fields.stack = messageIsClean ? error.stack : stackFrames(error.stack);
  }
  if (error.cause !== undefined && depth < 3) fields.cause = safeErrorFields(error.cause, depth + 1);
  return fields;
}

/** The `    at ...` lines only: the lines before them repeat the (possibly multi-line) message. */
function stackFrames(stack: string): string {
  return stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
}
