import { HttpError } from '../src/http/http-errors.js';
import { isJsonContentType, MAX_JSON_BODY_BYTES, parseJson } from '../src/http/json-body.js';

/**
 * The Lambda jsonBody middleware's checks, in its order, on a fetch Request: 415 unless
 * application/json, 413 past 8 KiB (counted while reading, so a chunked upload without
 * Content-Length is cut off too), 400 unless UTF-8 JSON. Error messages never quote the body.
 */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  if (!isJsonContentType(request.headers.get('content-type') ?? undefined)) {
    throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  const tooLarge = () => new HttpError(413, 'payload_too_large', `request body must be at most ${maxBytes} bytes`);
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw tooLarge();
  const bytes = await readAtMost(request, maxBytes, tooLarge);
  return parseJson(bytes);
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
