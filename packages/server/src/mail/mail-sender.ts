/** What a mail is for: in logs, metrics and SES tags only (never the address). */
export type MailKind = 'password_reset' | 'email_verification' | 'registration_attempt';

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
 * Delivers one mail or throws a MailError (errors.ts): MailUnavailableError when trying again
 * later may work, MailRejectedError when it will not.
 */
export interface MailSender {
  send(mail: OutgoingMail): Promise<void>;
}

/** Where senders say what they did: kind, message id, file name. Never an address, a link or a body. */
export interface MailLog {
  info(message: string, fields?: Record<string, unknown>): void;
}
