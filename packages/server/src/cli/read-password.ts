import { createInterface } from 'node:readline';
import { PasswordTooLongError } from 'passlane/common';

/**
 * Passwords come from stdin only, never from argv (argv shows up in `ps` and shell history).
 * A piped password loses one trailing newline; a terminal gets a prompt with echo off.
 */
export async function readPassword(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (input.isTTY) return promptHidden(input);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    size += (chunk as Buffer).length;
    // Far above any password bound: stop reading a runaway pipe instead of buffering it all.
    if (size > MAX_STDIN_BYTES) throw new PasswordTooLongError(`stdin holds more than ${MAX_STDIN_BYTES} bytes; a password is far shorter`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

const MAX_STDIN_BYTES = 1024 * 1024;

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
