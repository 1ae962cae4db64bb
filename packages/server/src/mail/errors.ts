/**
 * Typed mail errors. Callers branch on `code` or `instanceof`; messages name what failed (SES's
 * error name, an HTTP status, a file system code), never the address. SES's own messages can
 * quote the address: they stay in `cause`, whose message safeErrorFields does not log.
 */
export type MailErrorCode = 'ERR_MAIL_UNAVAILABLE' | 'ERR_MAIL_REJECTED';

export abstract class MailError extends Error {
  abstract readonly code: MailErrorCode;

  constructor(
    message: string,
    /** SES's error name (`MessageRejected`, `TooManyRequestsException`, `TimeoutError`, ...) or a file system code. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Not sent, and trying again later may work: network, timeout, 5xx or throttling after the SDK's
 * retries, a sending quota, an outbox that could not be written.
 */
export class MailUnavailableError extends MailError {
  readonly code = 'ERR_MAIL_UNAVAILABLE';

  constructor(reason: string, options?: { cause?: unknown; detail?: string }) {
    super(`mail could not be sent now: ${options?.detail ?? reason}`, reason, options);
  }
}

/**
 * Refused, and the same mail would be refused again: the message or its recipient
 * (MessageRejected, which is also a sandbox's unverified recipient), or the setup (sender not
 * verified, sending paused, access denied, unknown configuration set). Someone must change something.
 */
export class MailRejectedError extends MailError {
  readonly code = 'ERR_MAIL_REJECTED';

  constructor(reason: string, options?: { cause?: unknown; detail?: string }) {
    super(`mail was refused: ${options?.detail ?? reason}`, reason, options);
  }
}

/**
 * A mail setting (MailConfig, read from the environment or passed in code) is missing or cannot
 * be used here, found where mail is wired: `setting` names the field, and the message starts with
 * the variable that sets it, as ConfigError's do. Never a value but a directory's path.
 */
export class MailConfigError extends Error {
  readonly code = 'ERR_MAIL_CONFIG';

  constructor(
    readonly setting: 'transport' | 'from' | 'appUrl' | 'templateDir' | 'outboxDir',
    message: string,
  ) {
    super(message);
    this.name = 'MailConfigError';
  }
}
