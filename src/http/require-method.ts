import type { MiddlewareObj } from '@middy/core';
import { HttpError } from './http-errors.js';
import type { LambdaHttpEvent } from './http-types.js';
import { httpRequestOf } from './normalise-event.js';

/**
 * API Gateway routes by method, but a Function URL sends every method and path to the function:
 * refuse the others with 405 before any work (and before the body is parsed).
 */
export function requireMethod(...methods: string[]): MiddlewareObj<LambdaHttpEvent> {
  const allowed = methods.map((method) => method.toUpperCase());
  return {
    before: (request) => {
      const { method } = httpRequestOf(request.event);
      if (!allowed.includes(method)) {
        throw new HttpError(405, 'method_not_allowed', `use ${allowed.join(' or ')}`, { allow: allowed.join(', ') });
      }
    },
  };
}
