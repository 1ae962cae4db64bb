import { PasslaneServerError, type ErrorCode } from '../accounts/errors.js';

/** The codes of the request's envelope (its method, path, content type, size, encoding). */
export type HttpErrorCode = Extract<ErrorCode, 'invalid_json' | 'invalid_request' | 'not_found' | 'method_not_allowed' | 'payload_too_large' | 'unsupported_media_type'>;

/**
 * Protocol-level rejections raised by the HTTP toolkit (bad JSON, wrong content type, body too
 * large, wrong method, no such path): problems with the request's envelope, which the use cases
 * never see. Answered by the error table like every other server error.
 */
export class HttpError extends PasslaneServerError {
  declare readonly code: HttpErrorCode;

  constructor(code: HttpErrorCode, message: string, details?: { allow?: string }) {
    super(code, message, details);
    // Spelled out: the Lambda bundle is minified, and this name is what its logs show.
    this.name = 'HttpError';
  }
}
