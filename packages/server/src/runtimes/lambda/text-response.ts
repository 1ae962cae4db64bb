import type { ApiResponse } from '../../api/responses.js';

/**
 * A Response that holds its body as the string it was made from, for a host whose own code reads
 * it back whole (the Lambda host, through hono's adapter, which calls `text()`): no stream is
 * built for the body and none is read. `body` is null, so a runtime that streams a Response out
 * itself (Workers, node:http) would send nothing: those hosts get web Responses (toWebResponse).
 */
export class TextResponse extends Response {
  readonly #text: string;

  constructor(answer: ApiResponse) {
    super(null, { status: answer.status, headers: answer.headers });
    this.#text = answer.body ?? '';
  }

  override text(): Promise<string> {
    return Promise.resolve(this.#text);
  }

  override json(): Promise<unknown> {
    return Promise.resolve().then(() => JSON.parse(this.#text) as unknown);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = new TextEncoder().encode(this.#text);
    return Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  }

  override clone(): TextResponse {
    const headers: Record<string, string> = {};
    this.headers.forEach((value, name) => (headers[name] = value));
    return new TextResponse({ status: this.status, headers, body: this.#text });
  }
}
