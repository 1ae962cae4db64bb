import type { AwsConnection } from '../shared/aws-connection.js';

/** `ses`: Amazon SES v2; `outbox`: `.eml` files for a developer (never on Lambda); `none`: nothing is sent. */
export type MailTransport = 'ses' | 'outbox' | 'none';
export const MAIL_TRANSPORTS: readonly MailTransport[] = ['ses', 'outbox', 'none'];

/** A mailbox: `no-reply@example.com` or `Example <no-reply@example.com>`. */
export interface MailAddress {
  address: string;
  name?: string;
}

/** Where SES is and how to sign for it: the same shape as DynamoDB's (endpoint, region, credentials). */
export type SesConnection = AwsConnection;

export interface SesSettings extends SesConnection {
  /** PASSLANE_SES_IDENTITY_ARN: the verified identity the mail is sent as (and what IAM allows). */
  identityArn?: string;
  /** PASSLANE_SES_CONFIGURATION_SET: event publishing (bounces, complaints), sending limits. */
  configurationSet?: string;
}

/**
 * How account mail is sent and what it links to. config/mail-config.ts reads it from the
 * environment (README.md here lists the variables); in code, pass one of your own.
 */
export interface MailConfig {
  /** PASSLANE_MAIL_TRANSPORT: `ses` on Lambda, `outbox` elsewhere (a Worker must say `ses` or `none`). */
  transport: MailTransport;
  /** PASSLANE_MAIL_FROM: required to send through SES (checked where mail is wired, account-mail.ts). */
  from?: MailAddress;
  /**
   * PASSLANE_APP_URL, without a trailing slash: the app whose pages receive the links. Defaults to
   * the local server itself, `http://localhost:<PORT>` (config/mail-config.ts), except with SES,
   * where a real app must be named (and be https).
   */
  appUrl?: string;
  /** The app's pages, appended to appUrl: PASSLANE_APP_PASSWORD_RESET_PATH, ..._EMAIL_VERIFICATION_PATH, ..._SIGN_IN_PATH, ..._DEVICE_APPROVAL_PATH, ..._FACTOR_UNDO_PATH, ..._EMAIL_CHANGE_PATH, ..._EMAIL_CHANGE_UNDO_PATH. */
  paths: { passwordReset: string; emailVerification: string; signIn: string; deviceApproval: string; factorUndo: string; emailChange: string; emailChangeUndo: string };
  /** PASSLANE_SERVICE_NAME (passlane): what the mails call the service. */
  serviceName: string;
  /** PASSLANE_MAIL_TEMPLATE_DIR: files that replace the built-in subjects and bodies (README.md here). */
  templateDir?: string;
  /** `<PASSLANE_DATA_DIR>/outbox`: where the outbox transport writes. */
  outboxDir: string;
  ses: SesSettings;
}

export const DEFAULT_SERVICE_NAME = 'passlane';
export const DEFAULT_APP_PATHS: Readonly<MailConfig['paths']> = {
  passwordReset: '/reset-password',
  emailVerification: '/verify-email',
  signIn: '/sign-in',
  deviceApproval: '/approve-device',
  factorUndo: '/undo-factor',
  emailChange: '/confirm-email-change',
  emailChangeUndo: '/undo-email-change',
};
