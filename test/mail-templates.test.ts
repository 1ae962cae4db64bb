/**
 * The mails' content: every interpolated value escaped in HTML, the token only in the link's
 * fragment, validity stated, subjects one line, and customisation through templates in code or
 * files in PASSLANE_MAIL_TEMPLATE_DIR (checked: unknown placeholders and missing links fail).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { createAccountMail, MFA_CHANGES } from '../packages/server/src/mail/account-mail.js';
import { MailConfigError } from '../packages/server/src/mail/errors.js';
import {
  describeMinutes,
  mailLink,
  renderDeviceApprovalMail,
  renderEmailVerificationMail,
  renderPasswordResetMail,
  renderRegistrationAttemptMail,
  TemplateError,
  withOverrides,
} from '../packages/server/src/mail/templates.js';
import type { AccountMail } from '../packages/server/src/mail/account-mail.js';
import { captureMails } from './support/ses-capture.js';

const TO = 'ada@example.com';

describe('links', () => {
  it('carry the token in the fragment only, URL-encoded', () => {
    const link = mailLink('https://app.example.com/account/', '/reset-password', 'a/b+c=d&e');
    expect(link).toBe('https://app.example.com/account/reset-password#token=a%2Fb%2Bc%3Dd%26e');
    const url = new URL(link);
    // What a browser sends, and so what any server or proxy log sees: no token.
    expect(`${url.origin}${url.pathname}${url.search}`).toBe('https://app.example.com/account/reset-password');
    expect(new URLSearchParams(url.hash.slice(1)).get('token')).toBe('a/b+c=d&e');
    expect(mailLink('https://app.example.com', '/sign-in')).toBe('https://app.example.com/sign-in');
  });
});

describe('rendering', () => {
  const token = 'TOKEN_abc123';
  const link = mailLink('https://app.example.com', '/reset-password', token);

  it('puts the link and its validity in both bodies, and the token nowhere else', () => {
    const mail = renderPasswordResetMail({ to: TO, link, expiresInMinutes: 60, serviceName: 'Example' });
    expect(mail).toMatchObject({ to: TO, kind: 'password_reset', link, subject: 'Reset your Example password' });
    expect(mail.text).toContain(`\n${link}\n`);
    expect(mail.text).toContain('for 1 hour');
    expect(mail.html).toContain(`<a href="${link}">`);
    expect(mail.html).toContain('for 1 hour');
    expect(mail.subject).not.toContain(token);
    for (const body of [mail.text, mail.html]) expect(body.split(token).length - 1).toBe(body === mail.html ? 2 : 1); // the HTML shows the link twice: as a link and as text
    expect(mail.text.replaceAll(link, '')).not.toContain(token);
    expect(mail.html.replaceAll(link, '')).not.toContain(token);

    const verification = renderEmailVerificationMail({ to: TO, link, expiresInMinutes: 1440, serviceName: 'Example' });
    expect(verification).toMatchObject({ kind: 'email_verification', subject: 'Confirm your email address for Example' });
    expect(verification.text).toContain('24 hours');

    // A device approval: its link only in the bodies, with its validity and where it works.
    const approvalLink = mailLink('https://app.example.com', '/approve-device', token);
    const approval = renderDeviceApprovalMail({ to: TO, link: approvalLink, expiresInMinutes: 15, serviceName: 'Example' });
    expect(approval).toMatchObject({ kind: 'device_approval', link: approvalLink, subject: 'Approve a new device for your Example account' });
    for (const body of [approval.text, approval.html]) {
      expect(body).toContain('for 15 minutes');
      expect(body).toContain('on that same device');
      expect(body).toContain('never forward the link');
    }
    expect(approval.text).toContain(`\n${approvalLink}\n`);
    expect(approval.html).toContain(`<a href="${approvalLink}">`);
    expect(approval.subject).not.toContain(token);

    const attempt = renderRegistrationAttemptMail({ to: TO, link: 'https://app.example.com/sign-in', serviceName: 'Example' });
    expect(attempt.kind).toBe('registration_attempt');
    expect(attempt.text).toContain('https://app.example.com/sign-in');
    expect(attempt.html).toContain('<a href="https://app.example.com/sign-in">');
  });

  it('names the account each mail is about, in both bodies, as the address it is sent to', () => {
    // Canonical, as the use-cases pass it: the A-label domain, and a quote for the HTML to escape.
    const to = "o'neil@xn--bcher-kva.example";
    const mails = [
      renderPasswordResetMail({ to, link, expiresInMinutes: 60, serviceName: 'Example' }),
      renderEmailVerificationMail({ to, link, expiresInMinutes: 1440, serviceName: 'Example' }),
      renderRegistrationAttemptMail({ to, link: 'https://app.example.com/sign-in', serviceName: 'Example' }),
      renderDeviceApprovalMail({ to, link, expiresInMinutes: 15, serviceName: 'Example' }),
    ];
    for (const mail of mails) {
      expect(mail.to).toBe(to);
      expect(mail.text).toContain(` ${to}`);
      expect(mail.html).toContain(' o&#39;neil@xn--bcher-kva.example');
    }
    // Templates of one's own may say it too, the subject included.
    const custom = withOverrides({ registration_attempt: { subject: '{{serviceName}}: {{email}}', text: 'About {{ email }}: {{link}}' } });
    const attempt = renderRegistrationAttemptMail({ to, link: 'https://app.example.com/sign-in', serviceName: 'Example' }, custom);
    expect([attempt.subject, attempt.text]).toEqual([`Example: ${to}`, `About ${to}: https://app.example.com/sign-in`]);
  });

  it('escapes every interpolated value in the HTML, and keeps the subject to one line', () => {
    const serviceName = '<script>alert("x")</script> & \'Co\'';
    const hostile = 'https://app.example.com/reset-password#token="><img src=x onerror=alert(1)>';
    const mail = renderPasswordResetMail({ to: TO, link: hostile, expiresInMinutes: 30, serviceName }, withOverrides({ password_reset: { subject: '{{serviceName}}\r\nBcc: eve@example.com' } }));
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;Co&#39;');
    expect(mail.html).toContain('href="https://app.example.com/reset-password#token=&#34;&#62;&#60;img src=x onerror=alert(1)&#62;"');
    // Plain text is plain: nothing to escape there.
    expect(mail.text).toContain(serviceName);
    expect(mail.subject).toBe(`${serviceName} Bcc: eve@example.com`);
    expect(mail.text).toContain('30 minutes');
  });

  it('words the validity in the largest whole unit', () => {
    expect([1, 30, 60, 90, 120, 1440, 2880, 10_080].map(describeMinutes)).toEqual(['1 minute', '30 minutes', '1 hour', '90 minutes', '2 hours', '24 hours', '2 days', '7 days']);
  });
});

describe('customisation', () => {
  it('replaces the parts given, keeps the others built in', () => {
    const templates = withOverrides({ password_reset: { subject: '{{serviceName}}: new password', text: 'Go to {{link}} within {{expiresInMinutes}} min.' } });
    const mail = renderPasswordResetMail({ to: TO, link: 'https://app.example.com/r#token=t', expiresInMinutes: 15, serviceName: 'Example' }, templates);
    expect(mail.subject).toBe('Example: new password');
    expect(mail.text).toBe('Go to https://app.example.com/r#token=t within 15 min.');
    expect(mail.html).toContain('<a href="https://app.example.com/r#token=t">');
  });

  it.each([
    ['password_reset', 'text', 'Hello {{password}}', /unknown placeholder \{\{password\}\}/],
    ['password_reset', 'html', '<p>No link here</p>', /must contain \{\{link\}\}/],
    ['email_verification', 'subject', 'Verify: {{link}}', /unknown placeholder \{\{link\}\}/],
    ['registration_attempt', 'text', 'Valid for {{expiresIn}}', /unknown placeholder/],
    ['mfa_changed', 'text', 'Your code: {{code}}', /unknown placeholder \{\{code\}\}/],
    ['registration_attempt', 'text', 'Changed: {{change}}', /unknown placeholder \{\{change\}\}/],
  ] as const)('refuses a %s %s template that says %j', (kind, part, source, message) => {
    expect(() => withOverrides({ [kind]: { [part]: source } })).toThrow(TemplateError);
    expect(() => withOverrides({ [kind]: { [part]: source } })).toThrow(message);
  });

  describe('from files in PASSLANE_MAIL_TEMPLATE_DIR', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'passlane-templates-'));
    });
    afterEach(() => rm(dir, { recursive: true, force: true }));

    const wire = () => {
      const sender = captureMails();
      const config = readConfig({ PASSLANE_MAIL_TEMPLATE_DIR: dir, PASSLANE_APP_URL: 'https://app.example.com', PASSLANE_SERVICE_NAME: 'Example' });
      return { sender, mail: createAccountMail(config.mail, { sender }) };
    };

    it('uses the files present, over templates in code', async () => {
      await writeFile(join(dir, 'email_verification.subject.txt'), 'Welcome to {{ serviceName }}!\n');
      await writeFile(join(dir, 'email_verification.html'), '<p>Hi! <a href="{{link}}">Verify</a> within {{expiresIn}}.</p>');
      await writeFile(join(dir, 'README.md'), 'not a template: ignored');
      const sender = captureMails();
      const config = readConfig({ PASSLANE_MAIL_TEMPLATE_DIR: dir, PASSLANE_APP_URL: 'https://app.example.com', PASSLANE_SERVICE_NAME: 'Example' });
      const mail = createAccountMail(config.mail, { sender, templates: { email_verification: { subject: 'from code', text: 'Code: {{link}}' } } });
      await mail.ready();
      await mail.emailVerification(TO, 'tok', 7200);
      expect(sender.mails[0]).toMatchObject({
        subject: 'Welcome to Example!',
        text: 'Code: https://app.example.com/verify-email#token=tok',
        html: '<p>Hi! <a href="https://app.example.com/verify-email#token=tok">Verify</a> within 2 hours.</p>',
      });
    });

    it('fails ready() with the file named, for a misspelt file or a bad placeholder', async () => {
      await writeFile(join(dir, 'password-reset.txt'), '{{link}}');
      await expect(wire().mail.ready()).rejects.toThrow(MailConfigError);
      await expect(wire().mail.ready()).rejects.toThrow(/^PASSLANE_MAIL_TEMPLATE_DIR holds password-reset\.txt, which is no template/);
      await rm(join(dir, 'password-reset.txt'));
      await writeFile(join(dir, 'password_reset.txt'), 'Your password: {{password}}');
      await expect(wire().mail.ready()).rejects.toThrow(/^PASSLANE_MAIL_TEMPLATE_DIR file password_reset\.txt: password_reset text: unknown placeholder \{\{password\}\}/);
      // The same error at the first mail when nobody called ready().
      await expect(wire().mail.passwordReset(TO, 'tok', 3600)).rejects.toThrow(MailConfigError);
    });

    it('fails for a directory that cannot be read', async () => {
      await rm(dir, { recursive: true });
      await expect(wire().mail.ready()).rejects.toThrow(/^PASSLANE_MAIL_TEMPLATE_DIR cannot be read \(ENOENT\)/);
    });
  });
});

describe('the use-cases contract', () => {
  it('createAccountMail gives the mails the use cases send (AccountMail)', async () => {
    const sender = captureMails();
    const mail: AccountMail = createAccountMail(readConfig({}).mail, { sender });
    await mail.passwordReset(TO, 'tok', 3600);
    await mail.emailVerification(TO, 'tok2', 86_400);
    await mail.registrationAttempt(TO);
    await mail.mfaChanged(TO, 'recovery_code_used');
    await mail.deviceApproval(TO, 'tok3', 900);
    expect(sender.mails.map(({ kind, link }) => [kind, link])).toEqual([
      ['password_reset', 'http://localhost:3000/reset-password#token=tok'],
      ['email_verification', 'http://localhost:3000/verify-email#token=tok2'],
      ['registration_attempt', 'http://localhost:3000/sign-in'],
      ['mfa_changed', 'http://localhost:3000/sign-in'],
      ['device_approval', 'http://localhost:3000/approve-device#token=tok3'],
    ]);
    // What changed, said in both bodies; the sign-in page to act on a change not made by the owner.
    const changed = sender.mails.find((sent) => sent.kind === 'mfa_changed')!;
    expect(changed.subject).toBe('Two-step sign-in changed on your passlane account');
    for (const body of [changed.text, changed.html]) expect(body).toContain(MFA_CHANGES.recovery_code_used);
  });
});
