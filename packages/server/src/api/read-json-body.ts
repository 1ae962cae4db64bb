import { HttpError } from './http-error.js';

/** Register, login and password bodies are two short strings; 8 KiB is generous. */
export const MAX_JSON_BODY_BYTES = 8 * 1024;

export interface ReadJsonBodyOptions {
  maxBytes?: number;
  /** Also accept an OAuth 2.0 form body, read into the same shape (an object of strings). */
  form?: boolean;
  /**
   * The body, when the host already holds it whole (a Lambda event carries it as a string): read
   * from here, not from the Request's stream, which then has none.
   */
  held?: Uint8Array;
}

/**
 * Our own reader rather than hono's bodyLimit + `c.req.json()`: the checks must run in this
 * order (content type, then size counted while reading, so a chunked upload without
 * Content-Length is cut off too, then strict UTF-8 and JSON), and no error may quote the body
 * (JSON.parse's does).
 */
export async function readJsonBody(request: Request, options: ReadJsonBodyOptions = {}): Promise<unknown> {
  const { maxBytes = MAX_JSON_BODY_BYTES, held } = options;
  const contentType = request.headers.get('content-type') ?? undefined;
  const form = options.form === true && isFormContentType(contentType);
  if (!form && !isJsonContentType(contentType)) {
    const accepted = options.form ? 'application/json or application/x-www-form-urlencoded' : 'application/json';
    throw new HttpError('unsupported_media_type', `Content-Type must be ${accepted}`);
  }
  const tooLarge = () => new HttpError('payload_too_large', `request body must be at most ${maxBytes} bytes`);
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes || (held !== undefined && held.byteLength > maxBytes)) throw tooLarge();
  const bytes = held ?? (await readAtMost(request, maxBytes, tooLarge));
  return form ? parseForm(bytes) : parseJson(bytes);
}

/** `application/x-www-form-urlencoded`, as OAuth 2.0 clients send token requests (RFC 6749 §4.1.3). */
export function isFormContentType(value: string | undefined): boolean {
  return value?.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

/** A form as an object of strings; a repeated parameter is refused (RFC 6749 §3.2). */
export function parseForm(bytes: Uint8Array): Record<string, string> {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError('invalid_request', 'request body is not valid UTF-8');
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(fields, name)) throw new HttpError('invalid_request', `${name.slice(0, 40)} is given more than once`);
    fields[name] = value;
  }
  return fields;
}

/** `application/json`, optionally with `charset=utf-8` (JSON is UTF-8 by RFC 8259); nothing else. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const [mediaType = '', ...parameters] = value.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  return parameters.every((parameter) => {
    if (parameter === '') return true;
    const [name, rawValue = ''] = parameter.split('=', 2).map((part) => part.trim());
    return name !== 'charset' || rawValue.replace(/^"(.*)"$/, '$1') === 'utf-8';
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError('invalid_json', 'request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input (a password, perhaps): never pass it on.
    throw new HttpError('invalid_json', 'request body is not valid JSON');
  }
}

async function readAtMost(request: Request, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
