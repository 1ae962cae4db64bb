import type { MiddlewareObj } from '@middy/core';
import { HttpError } from './http-errors.js';
import type { LambdaHttpEvent } from './http-types.js';
import { httpRequestOf } from './normalise-event.js';

/**
 * Our own JSON body parser rather than @middy/http-json-body-parser: that one has no size limit
 * (it would JSON.parse whatever API Gateway passes, up to 6 MB), and its errors are http-errors
 * objects with their own format, while ours must answer `{"error":{"code","message"}}`.
 */

/** Register, login and password bodies are two short strings; 8 KiB is generous. */
export const MAX_JSON_BODY_BYTES = 8 * 1024;

export interface JsonBodyOptions {
  maxBytes?: number;
}

export function jsonBody(options: JsonBodyOptions = {}): MiddlewareObj<LambdaHttpEvent> {
  const maxBytes = options.maxBytes ?? MAX_JSON_BODY_BYTES;
  return {
    before: (request) => {
      const http = httpRequestOf(request.event);
      if (!isJsonContentType(http.headers['content-type'])) {
        throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
      }
      const bytes = http.rawBody ?? new Uint8Array();
      // Checked on the decoded bytes before any parsing, so a large body costs no parse.
      if (bytes.byteLength > maxBytes) {
        throw new HttpError(413, 'payload_too_large', `request body must be at most ${maxBytes} bytes`);
      }
      http.body = parseJson(bytes);
    },
  };
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

/** Strict UTF-8, then JSON; shared with the Worker (edge/read-json-body.ts). */
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
