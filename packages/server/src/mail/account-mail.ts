/**
 * The wiring's entry to mail: the configured sender (createMailSender) and the mails accounts
 * receive, rendered from the templates and sent through it (createAccountMail, the use-cases'
 * `mail`). Nothing here connects or reads files until the first mail.
 */
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { onceUntilFailure } from '../shared/once-until-failure.js';
import { MailConfigError, MailError } from './errors.js';
import type { MailDelivery, MailLog, MailSender, OutgoingMail } from './mail-sender.js';
import { createOutboxMailSender } from './outbox-sender.js';
import { createSesMailSender } from './ses-sender.js';
import type { MailConfig, SesConnection } from './settings.js';
import { loadTemplateDir } from './template-files.js';
import { systemClock } from '../shared/system-clock.js';
import {
  mailLink,
  renderDeviceApprovalMail,
  renderEmailChangeAttemptMail,
  renderEmailChangedMail,
  renderEmailChangeMail,
  renderEmailVerificationMail,
  renderPasswordResetMail,
  renderFactorAddedMail,
  renderAccountChangedMail,
  renderMfaChangedMail,
  renderRegistrationAttemptMail,
  withOverrides,
  type MailTemplateOverrides,
  type MailTemplates,
} from './templates.js';

/**
 * The mails an account receives, each with what its template needs: what the use cases call
 * (register, login, recovery), over whichever transport is configured. Never given a password.
 * Each mail resolves `sent`, or `not_sent` when the transport is `none`; a failure is logged
 * (`mail not sent`, with its cause) and thrown.
 */
export interface AccountMail {
  passwordReset(to: string, token: string, expiresInSeconds: number): Promise<MailDelivery | void>;
  emailVerification(to: string, token: string, expiresInSeconds: number): Promise<MailDelivery | void>;
  /** Someone tried to register with this address, which already has an account. */
  registrationAttempt(to: string): Promise<MailDelivery | void>;
  /** The account's second factors changed (features/mfa): the owner hears of every change. */
  mfaChanged(to: string, change: MfaChange): Promise<MailDelivery | void>;
  /** A link that makes the client that asked a known device of the account (features/device-approval). */
  deviceApproval(to: string, token: string, expiresInSeconds: number): Promise<MailDelivery | void>;
  /** A factor was added (features/mfa/mail-factor-added.ts): the change and its "this wasn't me" link. */
  factorAdded(to: string, change: AddedFactor, token: string, expiresInSeconds: number): Promise<MailDelivery | void>;
  /** The account was deleted, disabled, enabled or signed out everywhere (features/account). */
  accountChanged(to: string, change: AccountChange): Promise<MailDelivery | void>;
  /** To the new address of an account (features/email-change): the link that makes the change. */
  emailChange(to: string, token: string, expiresInSeconds: number): Promise<MailDelivery | void>;
  /** To an address that has an account: someone asked to move another account to it. */
  emailChangeAttempt(to: string): Promise<MailDelivery | void>;
  /** To the old address: the account moved to `newEmail`, with the "this wasn't me" link. */
  emailChanged(to: string, newEmail: string, token: string, expiresInSeconds: number): Promise<MailDelivery | void>;
}

/** What happened to an account (features/account), and the sentence its mail says. */
export const ACCOUNT_CHANGES = {
  deleted: 'Your account was deleted, with its sign-in methods and sessions. You can register again with this address.',
  disabled: 'Your account was disabled: every device was signed out, and signing in is refused until it is enabled again.',
  enabled: 'Your account was enabled again: you can sign in.',
  sessions_ended: 'Every device was signed out of your account: sign in again to go on.',
} as const;
export type AccountChange = keyof typeof ACCOUNT_CHANGES;

/** What changed of an account's second factors, and the sentence its mail says. */
export const MFA_CHANGES = {
  totp_enabled: 'An authenticator app was set up for two-step sign-in on your account, with new recovery codes.',
  recovery_codes_regenerated: 'New recovery codes were made for your account; the old ones no longer work.',
  totp_removed: 'Two-step sign-in with an authenticator app was turned off on your account (its recovery codes were deleted unless a passkey remains).',
  recovery_code_used: 'One of your recovery codes was used to sign in; it no longer works.',
  passkey_added: 'A passkey was added to your account: it can sign you in without a password.',
  passkey_removed: 'A passkey was removed from your account.',
  factor_failures: 'Someone who knows your password has entered several wrong two-step sign-in codes or passkey answers on your account. If it was not you, change your password.',
  recovery_codes_removed: 'The recovery codes of your account were deleted at a support request; make new ones from your account page.',
  factors_removed: 'Every two-step sign-in method of your account (authenticator app, passkeys, recovery codes) was removed at a support request: your password alone signs you in now.',
  factor_suspended: 'Too many wrong two-step sign-in attempts: that way of signing in is paused on your account until a recovery code or another of your factors is used, or the password is reset from this mailbox. If it was not you, change your password.',
} as const;
export type MfaChange = keyof typeof MFA_CHANGES;
/** The changes that add a factor: their mail carries an undo link instead of the sign-in page. */
export type AddedFactor = Extract<MfaChange, 'totp_enabled' | 'passkey_added'>;

/** The configured account mails (createAccountMail). */
export interface ConfiguredAccountMail extends AccountMail {
  /**
   * Reads and checks PASSLANE_MAIL_TEMPLATE_DIR and the outbox's directory now instead of at the
   * first mail: long-lived hosts (`npm start`, Deno, Bun) await it at start, so a broken template
   * or an outbox they may not write stops the start with its name.
   */
  ready(): Promise<void>;
}

export interface MailWiringOptions {
  /** "mail sent" lines (kind, message id) and "mail not sent" warnings (the cause); never the address. */
  log?: MailLog;
  /** The outbox's console line; default console.log. */
  print?: (line: string) => void;
  /** The SES client; default: the Node client, imported on the first send. The Worker passes createWorkerSesClient (packages/server/src/runtimes/workers/ses-client.ts). */
  sesClient?: (connection: SesConnection) => SESv2Client;
  /** Templates in code (the edge has no template files); files in PASSLANE_MAIL_TEMPLATE_DIR win over them. */
  templates?: MailTemplateOverrides;
  /** A sender of one's own instead of the configured transport (tests capture with one). */
  sender?: MailSender;
}

/**
 * The sender PASSLANE_MAIL_TRANSPORT names. SES needs PASSLANE_MAIL_FROM; the outbox falls back to
 * `<service> <no-reply@localhost>`; `none` sends nothing and says so in the log.
 */
export function createMailSender(config: MailConfig, options: MailWiringOptions = {}): MailSender {
  switch (config.transport) {
    case 'ses':
      if (config.from === undefined) throw new MailConfigError('from', 'PASSLANE_MAIL_FROM is not set: SES sends only from an address of a verified identity');
      return createSesMailSender({ from: config.from, ses: config.ses, ...(options.log && { log: options.log }), ...(options.sesClient && { client: options.sesClient }) });
    case 'outbox':
      return createOutboxMailSender({
        dir: config.outboxDir,
        from: config.from ?? { name: config.serviceName, address: 'no-reply@localhost' },
        ...(options.print && { print: options.print }),
        now: systemClock,
      });
    case 'none':
      return {
        async send(mail) {
          options.log?.info('mail not sent: PASSLANE_MAIL_TRANSPORT is none', { kind: mail.kind });
          return 'not_sent';
        },
      };
  }
}

/** Throws MailConfigError when a setting the transport needs is missing, so a function that sends fails at its start. */
export function createAccountMail(config: MailConfig, options: MailWiringOptions = {}): ConfiguredAccountMail {
  const sender = options.sender ?? createMailSender(config, options);
  const { appUrl, paths, serviceName, templateDir } = config;
  if (appUrl === undefined) throw new MailConfigError('appUrl', 'PASSLANE_APP_URL is not set: the mails link to the app that takes the token (an https URL)');
  // Overrides in code are checked now; files at the first mail, or at ready().
  const base = withOverrides(options.templates ?? {});
  const templates: () => Promise<MailTemplates> = onceUntilFailure(async () => (templateDir === undefined ? base : withOverrides(await loadTemplateDir(templateDir), base)));
  const minutes = (seconds: number) => Math.ceil(seconds / 60);
  // The use-cases answer every caller alike whatever mail did (an answer must not tell who has an
  // account), so the cause is said here, in the operator's log, or nowhere.
  const send = async (kind: OutgoingMail['kind'], render: () => Promise<OutgoingMail>): Promise<MailDelivery> => {
    try {
      return (await sender.send(await render())) ?? 'sent';
    } catch (error) {
      options.log?.warn?.('mail not sent', { kind, ...failureFields(error) });
      throw error;
    }
  };

  return {
    passwordReset: (to, token, expiresInSeconds) =>
      send('password_reset', async () =>
        renderPasswordResetMail({ to, link: mailLink(appUrl, paths.passwordReset, token), expiresInMinutes: minutes(expiresInSeconds), serviceName }, await templates()),
      ),
    emailVerification: (to, token, expiresInSeconds) =>
      send('email_verification', async () =>
        renderEmailVerificationMail({ to, link: mailLink(appUrl, paths.emailVerification, token), expiresInMinutes: minutes(expiresInSeconds), serviceName }, await templates()),
      ),
    registrationAttempt: (to) =>
      send('registration_attempt', async () => renderRegistrationAttemptMail({ to, link: mailLink(appUrl, paths.signIn), serviceName }, await templates())),
    mfaChanged: (to, change) =>
      send('mfa_changed', async () => renderMfaChangedMail({ to, link: mailLink(appUrl, paths.signIn), change: MFA_CHANGES[change], serviceName }, await templates())),
    deviceApproval: (to, token, expiresInSeconds) =>
      send('device_approval', async () =>
        renderDeviceApprovalMail({ to, link: mailLink(appUrl, paths.deviceApproval, token), expiresInMinutes: minutes(expiresInSeconds), serviceName }, await templates()),
      ),
    factorAdded: (to, change, token, expiresInSeconds) =>
      send('factor_added', async () =>
        renderFactorAddedMail(
          { to, link: mailLink(appUrl, paths.factorUndo, token), change: MFA_CHANGES[change], expiresInMinutes: minutes(expiresInSeconds), serviceName },
          await templates(),
        ),
      ),
    accountChanged: (to, change) =>
      send('account_changed', async () => renderAccountChangedMail({ to, link: mailLink(appUrl, paths.signIn), change: ACCOUNT_CHANGES[change], serviceName }, await templates())),
    emailChange: (to, token, expiresInSeconds) =>
      send('email_change', async () =>
        renderEmailChangeMail({ to, link: mailLink(appUrl, paths.emailChange, token), expiresInMinutes: minutes(expiresInSeconds), serviceName }, await templates()),
      ),
    emailChangeAttempt: (to) =>
      send('email_change_attempt', async () => renderEmailChangeAttemptMail({ to, link: mailLink(appUrl, paths.signIn), serviceName }, await templates())),
    emailChanged: (to, newEmail, token, expiresInSeconds) =>
      send('email_changed', async () =>
        renderEmailChangedMail(
          { to, newEmail, link: mailLink(appUrl, paths.emailChangeUndo, token), expiresInMinutes: minutes(expiresInSeconds), serviceName },
          await templates(),
        ),
      ),
    async ready() {
      await templates();
      await sender.ready?.();
    },
  };
}

/**
 * The failure's code, reason and message: ours never hold the address (SES's own message stays in
 * `cause`, not logged). Another error's message might (a sender of one's own), so only its name.
 */
function failureFields(error: unknown): Record<string, string> {
  if (error instanceof MailError) return { code: error.code, reason: error.reason, error: error.message };
  if (error instanceof MailConfigError) return { code: error.code, setting: error.setting, error: error.message };
  const code = (error as { code?: unknown } | null)?.code;
  return { error: error instanceof Error ? error.name : typeof error, ...(typeof code === 'string' && { code }) };
}
