import type { Logger } from '@aws-lambda-powertools/logger';
import type { MiddlewareObj } from '@middy/core';
import type { LambdaHttpEvent } from '../http/http-types.js';
import { httpRequestOf } from '../http/normalise-event.js';

/**
 * Adds API Gateway's request id (the one in its access logs and in clients' error reports) to
 * every log line of the invocation, beside Powertools' function_request_id. Removed again by
 * injectLambdaContext's resetKeys. Only the id: not the path (a Function URL accepts any path,
 * which may carry anything), headers or body.
 */
export function appendRequestLogKeys(logger: Logger): MiddlewareObj<LambdaHttpEvent> {
  return {
    before: (request) => {
      logger.appendKeys({ requestId: httpRequestOf(request.event).requestId });
    },
  };
}
