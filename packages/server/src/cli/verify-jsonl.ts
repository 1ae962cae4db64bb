import { PasslaneError, type PasswordHasher } from 'passlane/common';

/** Lines verified at once; results are still written in input order. */
const IN_FLIGHT = 4;

interface JsonlResult {
  ok: boolean;
  scheme: string | null;
  needsRehash: boolean;
  error?: { code: string; message: string };
}

async function verifyLine(hasher: PasswordHasher, line: string): Promise<JsonlResult> {
  try {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      return failure('ERR_JSONL_INVALID', 'line is not valid JSON');
    }
    const { hash, password } = (record ?? {}) as { hash?: unknown; password?: unknown };
    if (typeof hash !== 'string' || typeof password !== 'string') {
      return failure('ERR_JSONL_INVALID', 'line must be an object with string fields "hash" and "password"');
    }
    const { ok, scheme, needsRehash } = await hasher.verify(hash, password);
    return { ok, scheme, needsRehash };
  } catch (error) {
    if (error instanceof PasslaneError) return failure(error.code, error.message);
    // Anything else is reported on its line too: several lines are in flight, and one line's
    // failure must neither stop the rest nor surface as an unhandled rejection.
    return failure('ERR_VERIFY_FAILED', 'verification failed');
  }
}

function failure(code: string, message: string): JsonlResult {
  return { ok: false, scheme: null, needsRehash: false, error: { code, message } };
}

/** One JSON result line per input line (blank lines skipped), in order; a bad line does not stop the rest. */
export async function* verifyJsonLines(hasher: PasswordHasher, lines: AsyncIterable<string>): AsyncGenerator<string> {
  const pending: Array<Promise<JsonlResult>> = [];
  for await (const line of lines) {
    if (line.trim() === '') continue;
    pending.push(verifyLine(hasher, line));
    if (pending.length >= IN_FLIGHT) yield JSON.stringify(await pending.shift()!);
  }
  while (pending.length > 0) yield JSON.stringify(await pending.shift()!);
}
