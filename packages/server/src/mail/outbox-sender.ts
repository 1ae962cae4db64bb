/**
 * `npm start`'s sender: each mail becomes an RFC 5322 `.eml` file under the outbox directory
 * (any mail client opens it), and one console line says which file and which link, so a
 * developer can click through reset and verification without a mail server. It prints the link,
 * token included, which is why it is refused on Lambda (packages/server/src/config/mail-config.ts); it never
 * prints the address. Node, Bun and Deno: `node:fs` is reached through process.getBuiltinModule,
 * so an edge bundle that carries the wiring imports no `node:` module.
 */
import { codeOf, makeDirectory } from '../shared/make-directory.js';
import { MailConfigError, MailRejectedError, MailUnavailableError } from './errors.js';
import type { MailKind, MailSender } from './mail-sender.js';
import { buildMimeMessage, transportAddress } from './mime.js';
import type { MailAddress } from './settings.js';

export interface OutboxMailSenderOptions {
  dir: string;
  from: MailAddress;
  /** The console line; default console.log. */
  print?: (line: string) => void;
  now: () => Date;
}

const LABELS: Record<MailKind, string> = {
  password_reset: 'password reset',
  email_verification: 'email verification',
  registration_attempt: 'registration attempt',
  mfa_changed: 'two-factor change',
  device_approval: 'device approval',
  factor_added: 'factor added',
  account_changed: 'account change',
  email_change: 'email change',
  email_change_attempt: 'email change attempt',
  email_changed: 'email changed',
};

export function createOutboxMailSender(options: OutboxMailSenderOptions): MailSender {
  const getBuiltinModule = globalThis.process?.getBuiltinModule;
  if (typeof getBuiltinModule !== 'function') {
    throw new MailConfigError('transport', 'PASSLANE_MAIL_TRANSPORT is outbox, which needs a file system (Node.js 20.16+, Bun, Deno); here use ses or none');
  }
  const fs = process.getBuiltinModule('node:fs/promises');
  const path = process.getBuiltinModule('node:path');
  const print = options.print ?? ((line: string) => console.log(line));
  const { now } = options;
  const domain = options.from.address.split('@')[1] ?? 'localhost';
  // The file system's code (EACCES, ENOENT), else the error's name (Deno's NotCapable, without --allow-write there).
  const unwritable = (error: unknown) =>
    new MailUnavailableError(codeOf(error) ?? (error instanceof Error ? error.name : 'write failed'), { cause: error, detail: `cannot write to the outbox ${options.dir}` });

  return {
    async ready() {
      // A file written and removed: what the first mail will do, so a start fails on what would fail it.
      const probe = path.join(options.dir, `.write-check-${crypto.randomUUID()}`);
      try {
        await makeDirectory(fs, options.dir);
        await fs.writeFile(probe, '', { mode: 0o600, flag: 'wx' });
        await fs.rm(probe, { force: true });
      } catch (error) {
        const { reason } = unwritable(error);
        throw new MailConfigError(
          'outboxDir',
          `PASSLANE_DATA_DIR's outbox ${options.dir} cannot be written (${reason}), so no mail could be: use a data directory this process may write (Deno: --allow-write for it)`,
        );
      }
    },
    async send(mail) {
      let to: string;
      try {
        to = transportAddress(mail.to);
      } catch (error) {
        throw new MailRejectedError('InvalidRecipient', { cause: error, detail: 'the recipient is not a mail address' });
      }
      const date = now();
      const id = crypto.randomUUID();
      const eml = buildMimeMessage({ ...mail, to, from: options.from, date, messageId: `${id}@${domain}`, boundary: `=_passlane_${id}` });
      // Sorted by time in a listing; the kind, not the address, in the name.
      const file = path.join(options.dir, `${date.toISOString().replace(/:/g, '-')}-${mail.kind}-${id.slice(0, 8)}.eml`);
      try {
        await makeDirectory(fs, options.dir);
        // 0600: the file holds a live token.
        await fs.writeFile(file, eml, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        throw unwritable(error);
      }
      print(`${LABELS[mail.kind]} mail written to ${file}${mail.link === undefined ? '' : `; link: ${mail.link}`}`);
      return 'sent';
    },
  };
}
