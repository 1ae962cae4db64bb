/** What a subcommand touches of the process, so tests can run it in-process. */
export interface CommandIo {
  /** What a command asks the operator through (the confirmation of `users delete`); absent: no one to ask. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  /** Aborted on Ctrl-C: the command stops at a safe point and says how to continue. */
  signal?: AbortSignal;
  /** Milliseconds, for when progress lines are due; Date.now unless a test steps it. */
  clock?: () => number;
}

/** The process's streams and its environment: the one place the CLI reads process.env. */
export function processIo(): CommandIo {
  let controller: AbortController | undefined;
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    // First Ctrl-C: stop cleanly (cursor saved, rows in flight finished); a second one kills as
    // usual. Installed only when a command reads the signal (import, rehash): a SIGINT listener
    // replaces Node's default, so for commands that never look (inventory, bench) it would
    // swallow the first Ctrl-C and leave them running.
    get signal() {
      if (controller === undefined) {
        const created = new AbortController();
        process.once('SIGINT', () => created.abort());
        controller = created;
      }
      return controller.signal;
    },
  };
}

/** Wrong arguments: the command prints its usage and exits 2. */
export class CommandUsageError extends Error {}

export const EXIT_INTERRUPTED = 130;

/** A whole number from `min` to `max`, or `fallback` when the option is absent. */
export function integerOption(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min || number > max) {
    throw new CommandUsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return number;
}

/**
 * A command's arguments through its parser, or, when they are wrong, its one-line reason and its
 * usage on stderr and undefined (the command then exits 2).
 */
export function parseCommandArgs<T>(io: CommandIo, command: string, usage: string, parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    writeLine(io.stderr, `passlane ${command}: ${describeFailure(error)}`);
    writeLine(io.stderr, usage);
    return undefined;
  }
}

export function writeLine(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}

/** `code: message` for typed errors; never the value that failed (hash, email, cursor). */
export function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return describeArgsError(error.message);
    return typeof code === 'string' && code.startsWith('ERR_') ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/**
 * node:util parseArgs's messages, the first sentence only: its advice on passing a positional
 * that starts with `-` after `--` is about the parser, not about this command.
 */
function describeArgsError(message: string): string {
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const positional = /^Unexpected argument '([^']+)'/.exec(message);
  if (positional) return `unexpected argument ${positional[1]}`;
  return message.split(/\. (?=[A-Z])/)[0]!.replace(/^./, (first) => first.toLowerCase());
}
