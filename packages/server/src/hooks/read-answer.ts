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
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > MAX_HOOK_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      throw new HookUnavailableError('answer_too_large');
    }
    text += decoder.decode(value, { stream: true });
  }
}
