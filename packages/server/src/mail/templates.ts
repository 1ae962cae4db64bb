/**
 * Rendering: a template's {{placeholders}} filled in, HTML-escaped in the HTML body, the subject
 * kept to one line. Values are the link, its validity, the service's name and the account's
 * address: a template has no way to reach a password, and the token appears only inside the
 * link's fragment.
 */
import { DEFAULT_MAIL_TEMPLATES, type MailTemplate, type MailTemplates } from './default-templates.js';
import type { MailKind, OutgoingMail } from './mail-sender.js';

export { DEFAULT_MAIL_TEMPLATES, type MailTemplate, type MailTemplates };

/** Some of the templates, some of their parts: whatever is missing stays built-in. */
export type MailTemplateOverrides = { [K in MailKind]?: Partial<MailTemplate> };

export interface LinkMailInput {
  /** The account's address, canonical (packages/server/src/accounts/canonical-email.ts): where the mail goes, and what `{{email}}` says. */
  to: string;
  link: string;
  expiresInMinutes: number;
  serviceName: string;
}

export interface RegistrationAttemptInput {
  /** The account's address, canonical: where the mail goes, and what `{{email}}` says. */
  to: string;
  /** The app's sign-in page: no token, the mail only informs. */
  link: string;
  serviceName: string;
}

/**
 * `${appUrl}${path}#token=<token>`. The token goes in the fragment, which browsers never send:
 * it stays out of the app's and every proxy's access logs and Referer headers; the app's page
 * reads it from location.hash and posts it.
 */
export function mailLink(appUrl: string, path: string, token?: string): string {
  const page = `${appUrl.replace(/\/+$/, '')}${path}`;
  return token === undefined ? page : `${page}#token=${encodeURIComponent(token)}`;
}

export function renderPasswordResetMail(input: LinkMailInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('password_reset', templates, input.to, { ...linkValues(input), serviceName: input.serviceName, email: input.to });
}

export function renderEmailVerificationMail(input: LinkMailInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('email_verification', templates, input.to, { ...linkValues(input), serviceName: input.serviceName, email: input.to });
}

export function renderRegistrationAttemptMail(input: RegistrationAttemptInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('registration_attempt', templates, input.to, { link: input.link, serviceName: input.serviceName, email: input.to });
}

export function renderDeviceApprovalMail(input: LinkMailInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('device_approval', templates, input.to, { ...linkValues(input), serviceName: input.serviceName, email: input.to });
}

export interface MfaChangedInput {
  /** The account's address, canonical. */
  to: string;
  /** The app's sign-in page: no token, the mail only informs. */
  link: string;
  /** What changed, as a sentence (account-mail.ts MFA_CHANGES): never a code or a secret. */
  change: string;
  serviceName: string;
}

export function renderMfaChangedMail(input: MfaChangedInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('mfa_changed', templates, input.to, { link: input.link, change: input.change, serviceName: input.serviceName, email: input.to });
}

export interface AccountChangedInput {
  /** The account's address, canonical. */
  to: string;
  /** The app's sign-in page: no token, the mail only informs. */
  link: string;
  /** What happened to the account, as a sentence (account-mail.ts ACCOUNT_CHANGES). */
  change: string;
  serviceName: string;
}

/** The account was deleted, disabled, enabled or signed out everywhere (features/account): the owner hears of it. */
export function renderAccountChangedMail(input: AccountChangedInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('account_changed', templates, input.to, { link: input.link, change: input.change, serviceName: input.serviceName, email: input.to });
}

/** A factor added: what was added, and the "this wasn't me" link (its token in the fragment) that undoes it. */
export interface FactorAddedInput extends LinkMailInput {
  /** What was added, as a sentence (account-mail.ts MFA_CHANGES). */
  change: string;
}

export function renderFactorAddedMail(input: FactorAddedInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('factor_added', templates, input.to, { ...linkValues(input), change: input.change, serviceName: input.serviceName, email: input.to });
}

/** An address change: the old address (`{{email}}` is where the mail goes) and the new one, as the mail names them. */
export interface EmailChangeInput {
  to: string;
  /** The address the account moves to (or, for an attempt, the one asked for: `to` itself). */
  newEmail: string;
  link: string;
  expiresInMinutes: number;
  serviceName: string;
}

/** To the new address: the link that makes the change. */
export function renderEmailChangeMail(input: LinkMailInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('email_change', templates, input.to, { ...linkValues(input), serviceName: input.serviceName, email: input.to });
}

/** To an address that has an account already: someone asked to move another account to it; nothing changed. */
export function renderEmailChangeAttemptMail(input: RegistrationAttemptInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('email_change_attempt', templates, input.to, { link: input.link, serviceName: input.serviceName, email: input.to });
}

/** To the old address: the account moved to `newEmail`, and the "this wasn't me" link that puts it back. */
export function renderEmailChangedMail(input: EmailChangeInput, templates: MailTemplates = DEFAULT_MAIL_TEMPLATES): OutgoingMail {
  return render('email_changed', templates, input.to, { ...linkValues(input), serviceName: input.serviceName, email: input.to, newEmail: input.newEmail });
}

/** The built-ins with the overrides on top, each override checked (throws TemplateError). */
export function withOverrides(overrides: MailTemplateOverrides, base: MailTemplates = DEFAULT_MAIL_TEMPLATES): MailTemplates {
  const merged = { ...base };
  for (const kind of Object.keys(base) as MailKind[]) {
    const override = overrides[kind];
    if (override === undefined) continue;
    for (const part of ['subject', 'text', 'html'] as const) {
      const source = override[part];
      if (source !== undefined) checkTemplate(kind, part, source);
    }
    merged[kind] = { ...base[kind], ...override };
  }
  return merged;
}

/** A template that uses a placeholder it cannot have, or lacks the link it must carry. */
export class TemplateError extends Error {
  constructor(
    readonly kind: MailKind,
    readonly part: keyof MailTemplate,
    message: string,
  ) {
    super(`${kind} ${part}: ${message}`);
    this.name = 'TemplateError';
  }
}

type Values = Record<string, string>;

const PLACEHOLDER = /\{\{\s*([A-Za-z]+)\s*\}\}/g;

/**
 * What each part may use. No link in a subject: subjects are shown in lists and notifications
 * and kept in more logs than bodies. A mail whose point is its link must carry it in both bodies.
 * `{{email}}`, the account's address, anywhere: it is in the To header already.
 */
function allowed(kind: MailKind, part: keyof MailTemplate): string[] {
  const expiry = kind === 'registration_attempt' || kind === 'mfa_changed' || kind === 'account_changed' || kind === 'email_change_attempt' ? [] : ['expiresIn', 'expiresInMinutes'];
  const change = kind === 'mfa_changed' || kind === 'factor_added' || kind === 'account_changed' ? ['change'] : [];
  // The new address in the old one's notice, so its owner knows where the account went.
  const moved = kind === 'email_changed' ? ['newEmail'] : [];
  return part === 'subject' ? ['serviceName', 'email', ...expiry, ...change] : ['link', 'serviceName', 'email', ...expiry, ...change, ...moved];
}

export function checkTemplate(kind: MailKind, part: keyof MailTemplate, source: string): void {
  const names = [...source.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
  const unknown = names.filter((name) => !allowed(kind, part).includes(name));
  if (unknown.length > 0) {
    throw new TemplateError(kind, part, `unknown placeholder {{${unknown[0]}}}; allowed: ${allowed(kind, part).map((name) => `{{${name}}}`).join(', ')}`);
  }
  if (kind !== 'registration_attempt' && kind !== 'mfa_changed' && kind !== 'account_changed' && kind !== 'email_change_attempt' && part !== 'subject' && !names.includes('link')) {
    throw new TemplateError(kind, part, 'must contain {{link}}');
  }
}

function render(kind: MailKind, templates: MailTemplates, to: string, values: Values): OutgoingMail {
  const template = templates[kind];
  return {
    to,
    kind,
    // One line: a line break in a header would end it (or start another).
    subject: fill(template.subject, values, (value) => value).replace(/\s+/g, ' ').trim(),
    text: fill(template.text, values, (value) => value),
    html: fill(template.html, values, escapeHtml),
    ...(values.link !== undefined && { link: values.link }),
  };
}

function fill(source: string, values: Values, encode: (value: string) => string): string {
  return source.replace(PLACEHOLDER, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : encode(value);
  });
}

/** Safe in element text and in quoted attribute values, the two places templates put values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function linkValues(input: LinkMailInput): Values {
  return { link: input.link, expiresIn: describeMinutes(input.expiresInMinutes), expiresInMinutes: String(input.expiresInMinutes) };
}

/** "1 hour", "24 hours", "30 minutes", "7 days": the largest unit that divides it. */
export function describeMinutes(minutes: number): string {
  const [count, unit] = minutes >= 2 * 1440 && minutes % 1440 === 0 ? [minutes / 1440, 'day'] : minutes % 60 === 0 && minutes > 0 ? [minutes / 60, 'hour'] : [minutes, 'minute'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
