/** Why a hook gave no usable answer: a word for the audit log, never the answer itself. */
export type HookFailureReason =
  | 'timeout'
  | 'network'
  | 'status'
  | 'function_error'
  | 'malformed_answer'
  | 'answer_too_large'
  | 'reserved_claim'
  | 'claims_too_large';

/**
 * A hook that could not be asked, or answered something passlane refuses. Never an API answer on
 * its own: the feature that asked decides (features/sessions/token-hook-claims.ts, the sign-up
 * callers), and the message never quotes the answer (it may hold personal data).
 */
export class HookUnavailableError extends Error {
  readonly code = 'ERR_HOOK_UNAVAILABLE';
  readonly reason: HookFailureReason;
  declare readonly status?: number;

  constructor(reason: HookFailureReason, options: { status?: number; cause?: unknown } = {}) {
    super(`the hook gave no usable answer (${reason}${options.status === undefined ? '' : ` ${options.status}`})`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HookUnavailableError';
    this.reason = reason;
    if (options.status !== undefined) this.status = options.status;
  }
}

/** A hook's settings that cannot work (a secret that is no Standard Webhooks secret); the message names no value. */
export class HookConfigError extends Error {
  readonly code = 'ERR_HOOK_CONFIG';

  constructor(message: string) {
    super(message);
    this.name = 'HookConfigError';
  }
}
