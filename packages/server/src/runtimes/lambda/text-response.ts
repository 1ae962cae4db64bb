import type { Context } from 'hono';
import type { ApiHost } from '../../api/api-host.js';
import type { ApiResponse } from '../../api/responses.js';

/** What the seam reads of a Lambda HTTP event (all three integrations have both fields). */
interface EventBody {
  body?: string | null;
  isBase64Encoded?: boolean;
}

/**
 * The Lambda host's bodies, without a stream either way: its one optimisation of the HTTP path.
 * An event carries the body as a string and the answer must be one, but a web Request copies its
 * body into a stream that the API would only read back, and a web Response streams its body even
 * when hono's Lambda adapter reads it back whole. So hono is handed each event without its body
 * (`withoutBody`), the API reads the body held here (`body`, keyed by the event hono was handed:
 * its env's `event`), and routes answer TextResponses (`respond`). docs/measurements.md, "Login CPU", has
 * what it saves. The other hosts stream their Responses out and use neither (src/api/README.md).
 */
export interface StreamlessBodies extends Required<Pick<ApiHost<unknown>, 'body' | 'respond'>> {
  /**
   * The event to hand hono: a copy without its body, whose bytes are held for `body`. That also
   * spares a GET the error a web Request raises for a body, which API Gateway passes on any method.
   */
  withoutBody<E extends EventBody>(event: E): E;
}

export function streamlessBodies(): StreamlessBodies {
  // Weak: an event's body goes with the event once hono is done with it.
  const bodies = new WeakMap<object, Uint8Array>();
  return {
    withoutBody: (event) => {
      const bodiless = { ...event, body: undefined, isBase64Encoded: false };
      if (event.body != null) bodies.set(bodiless, bodyBytes(event.body, event.isBase64Encoded === true));
      return bodiless;
    },
    body: (c: Context) => {
      const event = (c.env as { event?: object } | undefined)?.event;
      return event === undefined ? undefined : bodies.get(event);
    },
    respond: (answer) => new TextResponse(answer),
  };
}

/** The body's bytes: API Gateway and Function URLs send binary (or any, as configured) bodies base64-encoded. */
function bodyBytes(body: string, isBase64Encoded: boolean): Uint8Array {
  return Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
}

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
