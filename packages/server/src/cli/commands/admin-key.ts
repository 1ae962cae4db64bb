import { parseArgs } from 'node:util';
import { newAdminKey } from '../../features/operators/admin-keys.js';
import { ADMIN_KEY_ID } from '../../features/operators/settings.js';
import { CommandUsageError, parseCommandArgs, type CommandIo } from './command-io.js';

export const ADMIN_KEY_USAGE = `usage: passlane admin-key <id>
Makes a new admin key for the operator API (/admin/..., features/operators) on the Node server,
Deno and Bun, and prints it once with the line to add to PASSLANE_ADMIN_KEYS (comma-separated):
the key goes to the operator (Authorization: Bearer <key>), the line to the server's settings; the
line holds only the key's SHA-256. <id> names the operator in audit events: 1 to 64 letters, digits,
".", "_" or "-". To rotate: add the new line, move to the new key, remove the old line.`;

/** `passlane admin-key <id>`: see ADMIN_KEY_USAGE. Exit 0, or 2 on bad arguments. */
export async function runAdminKeyCommand(args: string[], io: CommandIo): Promise<number> {
  const id = parseCommandArgs(io, 'admin-key', ADMIN_KEY_USAGE, () => parseAdminKeyArgs(args));
  if (id === undefined) return 2;
  const { key, stored } = newAdminKey(id);
  io.stdout.write(`admin key (give it to the operator; it is not shown again): ${key}\nPASSLANE_ADMIN_KEYS entry: ${stored}\n`);
  return 0;
}

function parseAdminKeyArgs(args: string[]): string {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new CommandUsageError('admin-key takes one argument: the key\'s id');
  const id = positionals[0]!;
  if (!ADMIN_KEY_ID.test(id)) throw new CommandUsageError('the id must be 1 to 64 letters, digits, ".", "_" or "-"');
  return id;
}
