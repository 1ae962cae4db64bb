import { parseArgs } from 'node:util';
import type { Actor } from '../../accounts/audit-events.js';
import { deleteAccount } from '../../features/account/delete-account.js';
import { disableAccount, enableAccount } from '../../features/account/disable-account.js';
import { endAllSessions } from '../../features/account/end-all-sessions.js';
import { findUserByEmail } from '../../features/account/find-user-by-email.js';
import { listUsers, MAX_LIST_LIMIT } from '../../features/account/list-users.js';
import { removeFactor, type FactorToRemove } from '../../features/account/remove-factor.js';
import { sendPasswordReset } from '../../features/account/send-password-reset.js';
import { showUser } from '../../features/account/show-user.js';
import { CommandUsageError, describeFailure, integerOption, parseCommandArgs, writeLine, type CommandIo } from './command-io.js';
import { confirmOnTerminal } from './confirm.js';
import { cliOperatorId } from './operator-id.js';
import { openOperatorTools } from './operator-tools.js';
import { printListedUsers, printUserView } from './print-user.js';
import { storageHint } from './storage-hint.js';

export const USERS_USAGE = `usage: passlane users find EMAIL | show ID | list [--cursor C] [--limit N]
       passlane users disable ID | enable ID | end-sessions ID | send-reset ID
       passlane users remove-factor ID totp|recovery_codes|passkey:CREDENTIAL_ID|all
       passlane users delete ID [--yes]
       (each with --json for one JSON line)
An operator's actions on accounts, on the server's table with your own AWS credentials
(PASSLANE_TABLE, AWS_REGION, DYNAMODB_ENDPOINT) and its fingerprint key (PASSLANE_FINGERPRINT_KEY or
PASSLANE_FINGERPRINT_KEY_PARAMETER); mails to the owner as the server sends them (PASSLANE_MAIL_*).
Each is audited as cli:<your OS user>, on stderr. delete asks first on a terminal; --yes skips the
question, and without a terminal --yes is required.
Exit: 0 done; 1 no such account, a factor that was not there, no reset mail sent (mail transport none)
or a deletion not confirmed; 2 usage or failure (a reset mail that failed too).`;

type Subcommand = 'find' | 'show' | 'list' | 'disable' | 'enable' | 'end-sessions' | 'remove-factor' | 'send-reset' | 'delete';

/** How many positionals after the subcommand each takes. */
const ARITY: Readonly<Record<Subcommand, number>> = {
  find: 1,
  show: 1,
  list: 0,
  disable: 1,
  enable: 1,
  'end-sessions': 1,
  'remove-factor': 2,
  'send-reset': 1,
  delete: 1,
};

interface UsersOptions {
  subcommand: Subcommand;
  args: string[];
  json: boolean;
  yes: boolean;
  cursor?: string;
  limit: number;
}

/** The subcommands that only read (and mail no one). */
const READS: readonly Subcommand[] = ['find', 'show', 'list'];

/** The default page of `users list`. */
const DEFAULT_LIST_LIMIT = 25;

/** `passlane users ...`: see USERS_USAGE and cli/README.md, "Operators". */
export async function runUsersCommand(argv: string[], io: CommandIo): Promise<number> {
  const options = parseCommandArgs(io, 'users', USERS_USAGE, () => parseUsersArgs(argv));
  if (options === undefined) return 2;
  const factor = options.subcommand === 'remove-factor' ? parseCommandArgs(io, 'users', USERS_USAGE, () => parseFactor(options.args[1]!)) : undefined;
  if (options.subcommand === 'remove-factor' && factor === undefined) return 2;
  const name = `users ${options.subcommand}`;

  // Refused before anything is read: a script that forgot --yes learns it at once.
  if (options.subcommand === 'delete' && !options.yes && io.stdin?.isTTY !== true) {
    writeLine(io.stderr, `passlane ${name}: not a terminal, so no one to confirm: add --yes to delete without asking. Nothing was deleted.`);
    return 2;
  }

  const tools = await openOperatorTools(io, name, { mails: !READS.includes(options.subcommand) });
  if (tools === undefined) return 2;
  const { deps, storage, close } = tools;
  const actor: Actor = { kind: 'operator', id: cliOperatorId() };
  const [id, second] = options.args as [string, string | undefined];
  const print = (human: () => void, json: unknown) => (options.json ? writeLine(io.stdout, JSON.stringify(json)) : human());
  try {
    switch (options.subcommand) {
      case 'find': {
        const view = await findUserByEmail(deps, id, actor);
        print(() => printUserView(io, view), view);
        return 0;
      }
      case 'show': {
        const view = await showUser(deps, id, actor);
        print(() => printUserView(io, view), view);
        return 0;
      }
      case 'list': {
        const page = await listUsers(deps, { limit: options.limit, actor, ...(options.cursor !== undefined && { cursor: options.cursor }) });
        print(() => printListedUsers(io, page), page);
        return 0;
      }
      case 'disable':
      case 'enable': {
        await (options.subcommand === 'disable' ? disableAccount : enableAccount)(deps, { userId: id, actor });
        const done = options.subcommand === 'disable' ? 'disabled: its sessions and devices ended, its logins refused' : 'enabled: it may log in again (its sessions stay ended)';
        print(() => writeLine(io.stdout, `Account ${id} ${done}.`), { userId: id, [options.subcommand === 'disable' ? 'disabled' : 'enabled']: true });
        return 0;
      }
      case 'end-sessions': {
        const ended = await endAllSessions(deps, { userId: id, actor });
        print(() => writeLine(io.stdout, `Account ${id}: ${ended.sessions} sessions ended, ${ended.devices} known devices forgotten.`), { userId: id, ...ended });
        return 0;
      }
      case 'remove-factor': {
        const { removed } = await removeFactor(deps, { userId: id, actor, factor: factor! });
        const what = second!;
        print(() => writeLine(io.stdout, removed ? `Account ${id}: ${what} removed; the owner was mailed.` : `Account ${id} has no ${what}: nothing removed.`), { userId: id, factor: what, removed });
        return removed ? 0 : 1;
      }
      case 'send-reset': {
        const { outcome } = await sendPasswordReset(deps, { userId: id, actor });
        const said = { sent: 'a reset link was mailed to the owner', not_sent: 'no mail was sent (PASSLANE_MAIL_TRANSPORT=none)', mail_failed: 'the mail failed (see the audit line)' }[outcome];
        print(() => writeLine(io.stdout, `Account ${id}: ${said}.`), { userId: id, outcome });
        return { sent: 0, not_sent: 1, mail_failed: 2 }[outcome];
      }
      case 'delete': {
        if (!options.yes) {
          // The account named, so the operator confirms the one they mean (a read, not audited: nothing is shown but to confirm).
          const { email, sessions } = await showUser(deps, id);
          const confirmed = await confirmOnTerminal(io, `Delete account ${id} (${email}, ${sessions} live sessions) and everything of it? This cannot be undone.`);
          if (confirmed !== true) {
            writeLine(io.stderr, `passlane ${name}: not confirmed; nothing was deleted.`);
            return 1;
          }
        }
        await deleteAccount(deps, { userId: id, actor });
        print(() => writeLine(io.stdout, `Account ${id} deleted: every item of it is gone, and the address was mailed.`), { userId: id, deleted: true });
        return 0;
      }
    }
  } catch (error) {
    writeLine(io.stderr, `passlane ${name}: ${describeUserFailure(error)}`);
    const hint = storageHint(error, storage);
    if (hint !== undefined) writeLine(io.stderr, hint);
    return (error as { code?: unknown }).code === 'user_not_found' ? 1 : 2;
  } finally {
    close();
  }
}

/** A server error's code and message (`user_not_found: no account has that id or address`); never the value that failed. */
function describeUserFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = describeFailure(error);
  return typeof code === 'string' && !code.startsWith('ERR_') && !message.startsWith(code) ? `${code}: ${message}` : message;
}

function parseUsersArgs(argv: string[]): UsersOptions {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, yes: { type: 'boolean' }, cursor: { type: 'string' }, limit: { type: 'string' } },
  });
  const [subcommand, ...args] = positionals;
  if (subcommand === undefined) throw new CommandUsageError('users needs a subcommand');
  if (!Object.hasOwn(ARITY, subcommand)) throw new CommandUsageError(`unknown subcommand ${subcommand}`);
  const known = subcommand as Subcommand;
  if (args.length !== ARITY[known]) throw new CommandUsageError(`users ${known} takes ${ARITY[known] === 0 ? 'no arguments' : ARITY[known] === 1 ? 'one argument' : 'two arguments'}`);
  if (args.some((arg) => arg.trim() === '')) throw new CommandUsageError(`users ${known}: an argument is empty`);
  if (known !== 'list' && (values.cursor !== undefined || values.limit !== undefined)) throw new CommandUsageError('--cursor and --limit are options of users list');
  if (known !== 'delete' && values.yes === true) throw new CommandUsageError('--yes is an option of users delete');
  return {
    subcommand: known,
    args,
    json: values.json === true,
    yes: values.yes === true,
    ...(values.cursor !== undefined && { cursor: values.cursor }),
    limit: integerOption(values.limit, 'limit', DEFAULT_LIST_LIMIT, 1, MAX_LIST_LIMIT),
  };
}

function parseFactor(text: string): FactorToRemove {
  if (text === 'totp' || text === 'recovery_codes' || text === 'all') return text;
  const passkey = /^passkey:(.+)$/.exec(text)?.[1];
  if (passkey !== undefined) return { passkey };
  throw new CommandUsageError('the factor is totp, recovery_codes, passkey:<credential id> (users show lists them) or all');
}
