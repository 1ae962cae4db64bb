// src/mail: one small interface, three senders (SES, outbox, none), templates. README.md here.
export { createAccountMail, createMailSender, type AccountMail, type ConfiguredAccountMail, type MailWiringOptions } from './account-mail.js';
export { MailConfigError, MailError, MailRejectedError, MailUnavailableError, type MailErrorCode } from './errors.js';
export type { MailDelivery, MailKind, MailLog, MailSender, OutgoingMail } from './mail-sender.js';
export { createOutboxMailSender, type OutboxMailSenderOptions } from './outbox-sender.js';
export { createSesMailSender, type SesMailSenderOptions } from './ses-sender.js';
export * from './settings.js';
export { loadTemplateDir } from './template-files.js';
export {
  DEFAULT_MAIL_TEMPLATES,
  escapeHtml,
  mailLink,
  renderEmailVerificationMail,
  renderPasswordResetMail,
  renderRegistrationAttemptMail,
  withOverrides,
  type MailTemplate,
  type MailTemplateOverrides,
  type MailTemplates,
} from './templates.js';
