#!/usr/bin/env node
/**
 * passlane CLI. Passwords are read from stdin, never from arguments, and never printed.
 *
 *   passlane hash                          < password   -> PHC string
 *   passlane verify --hash H               < password   -> {"ok":..,"scheme":..,"needsRehash":..}
 *   passlane verify --jsonl                < lines of {"hash":..,"password":..}
 *   passlane needs-rehash --hash H                      -> true | false
 *   passlane check-password [--email E]    < password   -> {"ok":..,"reason":..,"message":..} (the rules for new passwords)
 *   --backend native|wasm on each
 *
 * Bulk commands against the server's table (PASSLANE_TABLE, DYNAMODB_ENDPOINT, AWS_REGION; see
 * packages/server/src/features/rehash/README.md). They print counts, line numbers and userIds, never hashes or emails:
 *   passlane import FILE [--format jsonl|csv] [--rejects PATH] [--concurrency N] [--max-writes-per-second N] [--json]
 *   passlane rehash [--dry-run] [--segments N] [--max-writes-per-second N] [--json]
 *   passlane inventory [--segments N] [--json]
 *
 * An operator's actions on one account (features/account; cli/README.md, "Operators"), audited as cli:<OS user>:
 *   passlane users find EMAIL | show ID | list [--cursor C] [--limit N] | disable ID | enable ID | end-sessions ID
 *                  | remove-factor ID totp|recovery_codes|passkey:ID|all | send-reset ID | delete ID [--yes]   [--json]
 *
 * Account events (features/events): the sinks' counts and last errors, the pending outboxes; a deliverer:
 *   passlane events status [--json] | passlane events deliver [--follow]
 *
 *   passlane keygen [--format env|dev-vars|ssm]         -> new secrets to configure (it prints keys: that is its job)
 *   passlane admin-key ID                               -> a new admin key for the operator API off Lambda, and its PASSLANE_ADMIN_KEYS entry
 *   passlane --version
 *
 * Exit codes: 0 success or match, 1 mismatch, 2 unsupported or malformed hash, bad input or usage.
 * import: 1 when rows were rejected; import and rehash: 130 when interrupted (run again to resume).
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { createPasswordHasher, PasslaneError, type BackendChoice, type PasswordHasher } from 'passlane';
import { readLines, readPassword } from './read-password.js';
import { verifyJsonLines } from './verify-jsonl.js';
import { describeFailure, processIo, type CommandIo } from './commands/command-io.js';
import { KEYGEN_USAGE, runKeygenCommand } from './commands/keygen.js';
import { IMPORT_USAGE, runImportCommand } from './commands/import.js';
import { INVENTORY_USAGE, runInventoryCommand } from './commands/inventory.js';
import { REHASH_USAGE, runRehashCommand } from './commands/rehash.js';
import { BENCH_USAGE, benchCommand } from './commands/bench.js';
import { checkPasswordCommand } from './commands/check-password.js';
import { USERS_USAGE, runUsersCommand } from './commands/users.js';
import { ADMIN_KEY_USAGE, runAdminKeyCommand } from './commands/admin-key.js';
import { EVENTS_USAGE, runEventsCommand } from './commands/events.js';

const USAGE = `usage: passlane <hash | verify (--hash H | --jsonl) | needs-rehash --hash H> [--backend native|wasm]
       passlane check-password [--email E]   (exit 0 accepted, 1 refused)
       passlane import FILE [options] | passlane rehash [--dry-run] [options] | passlane inventory [--json]
       passlane users find EMAIL | show ID | list | disable ID | enable ID | end-sessions ID | remove-factor ID F | send-reset ID | delete ID [--yes]
       passlane events status [--json] | deliver [--follow]   (account events: failures, pending, a deliverer)
       passlane bench [--quick] [--remote FUNCTION --memory 512,1024,1769,3008] [options]
       passlane keygen [--format env|dev-vars|ssm]   (new signing, fingerprint and pepper keys) | passlane admin-key ID
       passlane --version
The password is read from stdin. passlane <import|rehash|inventory|users|events|bench|keygen|admin-key> --help for their options.`;

/** Subcommands with their own options and usage; none of them reads a password. */
const SUBCOMMANDS: Readonly<Record<string, { run: (args: string[], io: CommandIo) => Promise<number>; usage: string }>> = {
  import: { run: runImportCommand, usage: IMPORT_USAGE },
  rehash: { run: runRehashCommand, usage: REHASH_USAGE },
  inventory: { run: runInventoryCommand, usage: INVENTORY_USAGE },
  bench: { run: benchCommand, usage: BENCH_USAGE },
  keygen: { run: runKeygenCommand, usage: KEYGEN_USAGE },
  users: { run: runUsersCommand, usage: USERS_USAGE },
  'admin-key': { run: runAdminKeyCommand, usage: ADMIN_KEY_USAGE },
  events: { run: runEventsCommand, usage: EVENTS_USAGE },
};

class UsageError extends Error {}

function describeError(error: unknown): string {
  if (error instanceof PasslaneError) return `${error.code}: ${error.message}`;
  return describeFailure(error);
}

/** @passlane/server's version: package.json is two folders up from src/cli and from the bundle in dist/cli alike. */
function version(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
    console.log(`passlane ${version()}`);
    return 0;
  }
  const bulk = argv[0] !== undefined && Object.hasOwn(SUBCOMMANDS, argv[0]) ? SUBCOMMANDS[argv[0]] : undefined;
  if (bulk) {
    const args = argv.slice(1);
    if (args.includes('--help') || args.includes('-h')) {
      console.log(bulk.usage);
      return 0;
    }
    return bulk.run(args, processIo());
  }
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      hash: { type: 'string' },
      jsonl: { type: 'boolean' },
      backend: { type: 'string' },
      email: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [command, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError('passwords are read from stdin, not from arguments');
  const backend = values.backend as BackendChoice | undefined;
  if (backend !== undefined && backend !== 'native' && backend !== 'wasm' && backend !== 'auto') {
    throw new UsageError('--backend must be native or wasm');
  }
  // A command, not a server: no client is waiting to be told 503. With hashes capped at the cores,
  // a bulk verify line can queue behind slow legacy hashes (bcrypt cost 15) for longer than 3 s.
  const hasher: PasswordHasher = createPasswordHasher({ ...(backend && { backend }), concurrency: { queueTimeoutMs: 60 * 60 * 1000 } });

  switch (command) {
    case 'hash': {
      console.log(await hasher.hash(await readPassword()));
      return 0;
    }
    case 'verify': {
      if (values.jsonl) {
        if (values.hash !== undefined) throw new UsageError('--jsonl takes hashes from stdin; drop --hash');
        for await (const line of verifyJsonLines(hasher, readLines())) console.log(line);
        return 0;
      }
      if (values.hash === undefined) throw new UsageError('verify needs --hash H or --jsonl');
      const result = await hasher.verify(values.hash, await readPassword());
      console.log(JSON.stringify({ ok: result.ok, scheme: result.scheme, needsRehash: result.needsRehash }));
      return result.ok ? 0 : 1;
    }
    case 'check-password': {
      // The new-password rules, as register and password change apply them; the email gives the context words.
      const { line, code } = await checkPasswordCommand(await readPassword(), { ...(values.email !== undefined && { email: values.email }), env: processIo().env });
      console.log(line);
      return code;
    }
    case 'needs-rehash': {
      if (values.hash === undefined) throw new UsageError('needs-rehash needs --hash H');
      console.log(String(hasher.needsRehash(values.hash)));
      return 0;
    }
    default:
      throw new UsageError(command ? `unknown command ${command}` : 'no command given');
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    console.error(`passlane: ${describeError(error)}`);
    if (usage) console.error(USAGE);
    process.exitCode = 2;
  },
);
