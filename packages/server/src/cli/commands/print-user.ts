import type { ListedUser } from '../../features/account/list-users.js';
import type { UserView } from '../../features/account/user-view.js';
import { writeLine, type CommandIo } from './command-io.js';
import { formatTable } from './format-table.js';

/**
 * One account as `users find` and `users show` print it. The operator asked for this account, so
 * its address is shown, on their own terminal; a UserView holds no hash, secret, code or token.
 */
export function printUserView(io: CommandIo, view: UserView): void {
  const yesNo = (value: boolean | undefined) => (value === undefined ? '-' : value ? 'yes' : 'no');
  const { factors } = view;
  const rows: Array<[string, string]> = [
    ['userId', view.userId],
    ['email', view.email],
    ['created', view.createdAt],
    ['email verified', yesNo(view.emailVerified)],
    ['password changed', view.passwordChangedAt ?? '-'],
    ['reset required', yesNo(view.passwordResetRequired)],
    ['disabled', view.disabledAt === undefined ? 'no' : `${view.disabledAt}${view.disabledBy === undefined ? '' : ` by ${view.disabledBy}`}`],
    ['sessions', `${view.sessions} live, ${view.devices} known devices`],
    ['TOTP', yesNo(factors.totp)],
    ['recovery codes', `${factors.recoveryCodes} left`],
    ['passkeys', String(factors.passkeys.length)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) writeLine(io.stdout, `${label.padEnd(width)}  ${value}`);
  if (factors.passkeys.length > 0) {
    writeLine(io.stdout);
    const passkeys = factors.passkeys.map((passkey) => [`passkey:${passkey.id}`, passkey.name, passkey.createdAt, passkey.lastUsedAt ?? '-']);
    writeLine(io.stdout, formatTable(['factor (for remove-factor)', 'name', 'added', 'last used'], passkeys));
  }
}

/** A page of `users list`, and how to get the next. */
export function printListedUsers(io: CommandIo, page: { users: ListedUser[]; cursor?: string }): void {
  const yesNo = (value: boolean | undefined) => (value === undefined ? '-' : value ? 'yes' : 'no');
  const rows = page.users.map((user) => [user.userId, user.email, user.createdAt, yesNo(user.emailVerified), user.disabledAt ?? '-']);
  writeLine(io.stdout, formatTable(['userId', 'email', 'created', 'verified', 'disabled'], rows));
  writeLine(io.stdout, page.cursor === undefined ? `${page.users.length} accounts; the end of the table.` : `${page.users.length} accounts; the next page: passlane users list --cursor ${page.cursor}`);
}
