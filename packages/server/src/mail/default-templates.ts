import type { MailKind } from './mail-sender.js';

/** One mail's subject and bodies, with {{placeholders}} (templates.ts lists which each may use). */
export interface MailTemplate {
  subject: string;
  text: string;
  html: string;
}

export type MailTemplates = Record<MailKind, MailTemplate>;

/**
 * A device approval (features/device-approval): the link works only in the browser or app that
 * asked, so the mail says so, and says what not to do with a request one did not make.
 */
const DEVICE_APPROVAL: MailTemplate = {
  subject: 'Approve a new device for your {{serviceName}} account',
  text: `Someone asked to sign in to the {{serviceName}} account {{email}} from a new browser or app, while sign-ins from new devices are paused because of many failed attempts.

If it was you, open this link on that same device (it works nowhere else):
{{link}}

The link works once, for {{expiresIn}}, and signs nobody in: the password is still needed. If you did not ask for this, ignore this mail and never forward the link; consider changing your password.
`,
  html: page(`<p>Someone asked to sign in to the {{serviceName}} account {{email}} from a new browser or app, while sign-ins from new devices are paused because of many failed attempts.</p>
<p>If it was you, open this link on that same device (it works nowhere else): <a href="{{link}}">Approve this device</a></p>
<p>The link works once, for {{expiresIn}}, and signs nobody in: the password is still needed. If you did not ask for this, ignore this mail and never forward the link; consider changing your password.</p>`),
};

/**
 * Plain words, one action each, and what to do when the mail was not expected. Each names the
 * account's address, so whoever reads it in a shared or forwarding mailbox can tell an account
 * of their own from a look-alike (`v.ictim@`, `victim+x@`, which some mailboxes deliver alike).
 */
export const DEFAULT_MAIL_TEMPLATES: Readonly<MailTemplates> = {
  password_reset: {
    subject: 'Reset your {{serviceName}} password',
    text: `Someone asked to reset the password of the {{serviceName}} account {{email}}.

To choose a new password, open this link:
{{link}}

The link works once, for {{expiresIn}}. If you did not ask for this, ignore this mail: your password stays as it is.
`,
    html: page(`<p>Someone asked to reset the password of the {{serviceName}} account {{email}}.</p>
<p><a href="{{link}}">Choose a new password</a></p>
<p>The link works once, for {{expiresIn}}. If you did not ask for this, ignore this mail: your password stays as it is.</p>`),
  },
  email_verification: {
    subject: 'Confirm your email address for {{serviceName}}',
    text: `Please confirm that {{email}} is the email address of your {{serviceName}} account by opening this link:
{{link}}

The link works for {{expiresIn}}. If you did not create an account, ignore this mail.
`,
    html: page(`<p>Please confirm that {{email}} is the email address of your {{serviceName}} account.</p>
<p><a href="{{link}}">Confirm my email address</a></p>
<p>The link works for {{expiresIn}}. If you did not create an account, ignore this mail.</p>`),
  },
  registration_attempt: {
    subject: 'Someone tried to sign up to {{serviceName}} with your email address',
    text: `Someone tried to create a {{serviceName}} account with the email address {{email}}, which already has one. No account was created and nothing about yours changed.

If it was you, sign in here (you can reset your password there if you forgot it):
{{link}}

If it was not you, you can ignore this mail.
`,
    html: page(`<p>Someone tried to create a {{serviceName}} account with the email address {{email}}, which already has one. No account was created and nothing about yours changed.</p>
<p>If it was you, <a href="{{link}}">sign in</a> (you can reset your password there if you forgot it).</p>
<p>If it was not you, you can ignore this mail.</p>`),
  },
  mfa_changed: {
    subject: 'Two-step sign-in changed on your {{serviceName}} account',
    text: `{{change}}

If this was not you, sign in now, change your password and check your two-step sign-in:
{{link}}
`,
    html: page(`<p>{{change}}</p>
<p>If this was not you, <a href="{{link}}">sign in now</a>, change your password and check your two-step sign-in.</p>`),
  },
  device_approval: DEVICE_APPROVAL,
  account_changed: {
    subject: 'Your {{serviceName}} account changed',
    text: `{{change}} ({{email}})

If you did not ask for this, contact the service's support:
{{link}}
`,
    html: page(`<p>{{change}} ({{email}})</p>
<p>If you did not ask for this, contact the service's support: <a href="{{link}}">{{serviceName}}</a>.</p>`),
  },
  factor_added: {
    subject: 'A sign-in method was added to your {{serviceName}} account',
    text: `{{change}} ({{email}})

If this was not you, open this link: it removes what was added, signs every device out and mails you a link to choose a new password.
{{link}}

The link works once, for {{expiresIn}}. If it was you, ignore this mail.
`,
    html: page(`<p>{{change}} ({{email}})</p>
<p>If this was not you, <a href="{{link}}">undo it</a>: this removes what was added, signs every device out and mails you a link to choose a new password.</p>
<p>The link works once, for {{expiresIn}}. If it was you, ignore this mail.</p>`),
  },
  email_change: {
    subject: 'Confirm the new email address of your {{serviceName}} account',
    text: `Someone signed in to a {{serviceName}} account asked to move it to this address, {{email}}.

If it was you, open this link to make {{email}} the account's address (until then, nothing changes):
{{link}}

The link works once, for {{expiresIn}}. If you did not ask for this, ignore this mail.
`,
    html: page(`<p>Someone signed in to a {{serviceName}} account asked to move it to this address, {{email}}.</p>
<p>If it was you, <a href="{{link}}">confirm the new address</a> (until then, nothing changes).</p>
<p>The link works once, for {{expiresIn}}. If you did not ask for this, ignore this mail.</p>`),
  },
  email_change_attempt: {
    subject: 'Someone tried to move a {{serviceName}} account to your email address',
    text: `Someone signed in to a {{serviceName}} account asked to move it to {{email}}, which already has an account. Nothing changed, on either account.

If it was you, sign in with this address here; to use it for the other account, delete or change this one first:
{{link}}

If it was not you, you can ignore this mail.
`,
    html: page(`<p>Someone signed in to a {{serviceName}} account asked to move it to {{email}}, which already has an account. Nothing changed, on either account.</p>
<p>If it was you, <a href="{{link}}">sign in</a> with this address; to use it for the other account, delete or change this one first.</p>
<p>If it was not you, you can ignore this mail.</p>`),
  },
  email_changed: {
    subject: 'The email address of your {{serviceName}} account was changed',
    text: `The {{serviceName}} account {{email}} now signs in with {{newEmail}}; this address no longer does.

If this was not you, open this link: it puts {{email}} back, signs every device out and mails you a link to choose a new password.
{{link}}

The link works once, for {{expiresIn}}. If it was you, ignore this mail.
`,
    html: page(`<p>The {{serviceName}} account {{email}} now signs in with {{newEmail}}; this address no longer does.</p>
<p>If this was not you, <a href="{{link}}">undo the change</a>: this puts {{email}} back, signs every device out and mails you a link to choose a new password.</p>
<p>The link works once, for {{expiresIn}}. If it was you, ignore this mail.</p>`),
  },
};

/** The link also as text: some mail clients show HTML without working links. */
function page(body: string): string {
  return `<!doctype html>
<html>
<head><meta charset="utf-8"><title>{{serviceName}}</title></head>
<body style="font-family: sans-serif; line-height: 1.5">
${body}
<p style="color: #555; font-size: 0.9em">If the link does not open, copy this address into your browser:<br>{{link}}</p>
</body>
</html>
`;
}
