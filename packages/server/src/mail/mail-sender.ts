/** What a mail is for: in logs, metrics and SES tags only (never the address). */
export type MailKind = 'password_reset' | 'email_verification' | 'registration_attempt' | 'mfa_changed' | 'device_approval' | 'factor_added' | 'account_changed' | 'email_change' | 'email_change_attempt' | 'email_changed';

/** One rendered mail (templates.ts renders them), ready for any sender. Never holds a password. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  kind: MailKind;
  /**
   * The mail's one link, for the local outbox to print on a developer's console. The other
   * senders never log it: with a token in it, it is as good as the token.
   */
  link?: string;
}

/**
 * What became of a mail no sender refused: `sent` (handed to SES, written to the outbox) or
 * `not_sent` (the transport is `none`), so an audit event can say which.
 */
export type MailDelivery = 'sent' | 'not_sent';

/**
 * Delivers one mail or throws a MailError (errors.ts): MailUnavailableError when trying again
 * later may work, MailRejectedError when it will not. Resolves `not_sent` when it sends nothing
 * by design; anything else (a sender of one's own that returns nothing) counts as sent.
 */
export interface MailSender {
  send(mail: OutgoingMail): Promise<MailDelivery | void>;
  /**
   * Checks now what the first send would find out (the outbox's directory can be written), for
   * long-lived hosts to await at start (AccountMail.ready). Optional: SES is not called until a mail.
   */
  ready?(): Promise<void>;
}

/**
 * Where senders say what they did (kind, message id, file name) and the wiring why a mail was not
 * sent (its error's code, reason and message). Never an address, a link or a body.
 */
export interface MailLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
}
