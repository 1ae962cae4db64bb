import { createInterface } from 'node:readline';

/**
 * Passwords come from stdin only, never from argv (argv shows up in `ps` and shell history).
 * A piped password loses one trailing newline; a terminal gets a prompt with echo off.
 */
export async function readPassword(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (input.isTTY) return promptHidden(input);
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

function promptHidden(input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    process.stderr.write('Password: ');
    let password = '';
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.resume();
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(password);
    };
    const onData = (text: string) => {
      for (const char of text) {
        if (char === '\r' || char === '\n' || char === '\u0004') return done();
        if (char === '\u0003') return done(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') password = [...password].slice(0, -1).join('');
        else password += char;
      }
    };
    input.on('data', onData);
  });
}

/** Lines of stdin, for --jsonl. */
export function readLines(input: NodeJS.ReadStream = process.stdin): AsyncIterable<string> {
  return createInterface({ input, crlfDelay: Infinity });
}
