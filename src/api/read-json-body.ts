import { HttpError } from './http-error.js';

/** Register, login and password bodies are two short strings; 8 KiB is generous. */
export const MAX_JSON_BODY_BYTES = 8 * 1024;

/**
 * Our own reader rather than hono's bodyLimit + `c.req.json()`: the checks must run in this
 * order (415, then 413 counted while reading, so a chunked upload without Content-Length is cut
 * off too, then strict UTF-8 and JSON), and no error may quote the body (JSON.parse's does).
 */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  if (!isJsonContentType(request.headers.get('content-type') ?? undefined)) {
    throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  const tooLarge = () => new HttpError(413, 'payload_too_large', `request body must be at most ${maxBytes} bytes`);
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw tooLarge();
  return parseJson(await readAtMost(request, maxBytes, tooLarge));
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
    throw new HttpError(400, 'invalid_json', 'request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input (a password, perhaps): never pass it on.
    throw new HttpError(400, 'invalid_json', 'request body is not valid JSON');
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
