import { readCappedText } from '../shared/read-capped-text.js';
import { HookUnavailableError } from './errors.js';

/** An answer longer than this is refused unread: no hook needs more, and a login must not buffer megabytes. */
export const MAX_HOOK_ANSWER_BYTES = 16 * 1024;

/** The answer's JSON object, or 'malformed_answer'. */
export function parseAnswer(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input: not kept.
    throw new HookUnavailableError('malformed_answer');
  }
  if (!isPlainObject(value)) throw new HookUnavailableError('malformed_answer');
  return value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as text, refused past MAX_HOOK_ANSWER_BYTES without reading the rest. */
export async function readCapped(response: Response): Promise<string> {
  const text = await readCappedText(response, MAX_HOOK_ANSWER_BYTES);
  if (text === undefined) throw new HookUnavailableError('answer_too_large');
  return text;
}
