#!/usr/bin/env node
/**
 * passlane CLI. Passwords are read from stdin, never from arguments, and never printed.
 *
 *   passlane hash                          < password   -> PHC string
 *   passlane verify --hash H               < password   -> {"ok":..,"scheme":..,"needsRehash":..}
 *   passlane verify --jsonl                < lines of {"hash":..,"password":..}
 *   passlane needs-rehash --hash H                      -> true | false
 *   --backend native|wasm on each
 *
 * Exit codes: 0 success or match, 1 mismatch, 2 unsupported or malformed hash, bad input or usage.
 */
import { parseArgs } from 'node:util';
import { createPasswordHasher, PasslaneError, type BackendChoice, type PasswordHasher } from '../index.js';
import { readLines, readPassword } from './read-password.js';
import { verifyJsonLines } from './verify-jsonl.js';

const USAGE = `usage: passlane <hash | verify (--hash H | --jsonl) | needs-rehash --hash H> [--backend native|wasm]
The password is read from stdin.`;

class UsageError extends Error {}

function describeError(error: unknown): string {
  if (error instanceof PasslaneError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      hash: { type: 'string' },
      jsonl: { type: 'boolean' },
      backend: { type: 'string' },
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
  const hasher: PasswordHasher = createPasswordHasher(backend ? { backend } : {});

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
