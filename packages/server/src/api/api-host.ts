import type { Context } from 'hono';
import type { ApiResponse } from './responses.js';
import type { CorsConfig } from './settings.js';

/** What a host adapter gives the API; everything else about the request is the web-standard Request. */
export interface ApiHost<S> {
  /** The services for this request: per process on Lambda and Node, per isolate's bindings on Workers. */
  services(c: Context): S;
  origin(c: Context): RequestOrigin;
  /**
   * The body, when the host holds it whole already (a Lambda event's): the API reads it from here
   * and the host builds its Request without one. Undefined, or no such method: the Request's body.
   */
  body?(c: Context): Uint8Array | undefined;
  /**
   * How a route's answer becomes the Response hono hands back to the host; toWebResponse unless
   * given. Only the Lambda host gives this and `body`, to keep bodies out of streams
   * (streamlessBodies in runtimes/lambda/text-response.ts).
   */
  respond?(response: ApiResponse): Response;
  /**
   * The origins whose pages may call the API (PASSLANE_CORS_ORIGINS, read where the host reads
   * its environment); asked per request like `services`, as a Worker's bindings come with it.
   * Undefined, or no such method: none, and only the public routes answer other origins.
   */
  cors?(c: Context): CorsConfig;
  log: ApiLog;
}

/** Structured log lines; Powertools' Logger on Lambda and Node, JSON console lines elsewhere. */
export interface ApiLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /**
   * What of an error this log may hold (the hosts here all use observability/safe-error.ts):
   * an error's text can quote a body, a token or an email, so the API logs only what this gives.
   */
  safeError(error: unknown): unknown;
}

/** What only the host knows about a request (hono's `c.env` differs per runtime). */
export interface RequestOrigin {
  /** The client's address as the platform saw it, never a client-set header the platform passes through. */
  sourceIp: string | undefined;
  /** The platform's id for the request (API Gateway's, Cloudflare's ray), for logs. */
  requestId: string | undefined;
  /**
   * The caller as the platform authenticated it, where it did: the IAM principal's ARN API
   * Gateway's AWS_IAM authorization (or a Function URL's) signed the request as (the Lambda
   * host, from the event's requestContext: no client sets it). The operator API's identity there
   * (features/operators/operator-authentication.ts).
   */
  principal?: string;
}
