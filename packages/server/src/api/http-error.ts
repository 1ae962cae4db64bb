/**
 * Protocol-level rejections raised by the HTTP middlewares (bad JSON, wrong content type, body
 * too large, wrong method): problems with the request's envelope, which the use-cases never see.
 * The error handler turns each into `{"error":{"code","message"}}` with its status.
 */
export type HttpErrorCode =
  | 'invalid_json'
  | 'invalid_request'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: HttpErrorCode,
    message: string,
    /** Extra response headers, e.g. `allow` for 405. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
