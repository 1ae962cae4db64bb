import { createInterface } from 'node:readline';
import type { CommandIo } from './command-io.js';

/**
 * Asks on the terminal (the question on stderr, so stdout stays the command's output) and
 * resolves true only when the operator types `yes`; an input that ends first is a no. Undefined
 * when there is no terminal to ask: the caller refuses rather than guess (a script says --yes).
 */
export async function confirmOnTerminal(io: CommandIo, question: string): Promise<boolean | undefined> {
  const { stdin } = io;
  if (stdin === undefined || stdin.isTTY !== true) return undefined;
  io.stderr.write(`${question} Type yes to go on: `);
  const lines = createInterface({ input: stdin, terminal: false });
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      lines.once('line', resolve);
      lines.once('close', () => resolve(undefined));
    });
    return answer?.trim().toLowerCase() === 'yes';
  } finally {
    // Stops reading, so the process can exit.
    lines.close();
  }
}
