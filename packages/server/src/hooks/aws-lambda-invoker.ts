/**
 * The SDK's Lambda client as a hook's invoker (lambda-hook.ts). Only this module of the hooks
 * imports @aws-sdk/client-lambda, and the Node platform loads it only when a hook is a function,
 * so other bundles and the Worker never hold it.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { connectionSettings, type AwsConnection } from '../shared/aws-connection.js';
import { HookUnavailableError } from './errors.js';
import type { LambdaInvoker } from './lambda-hook.js';

export function createAwsLambdaInvoker(connection: AwsConnection, timeoutMs: number): LambdaInvoker {
  const client = new LambdaClient({
    ...connectionSettings(connection),
    // One attempt: the deadline is the login's, and a retry would spend it twice.
    maxAttempts: 1,
    requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true },
  });
  return {
    async invoke({ functionName, payload, signal }) {
      try {
        const response = await client.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'RequestResponse', Payload: payload }), { abortSignal: signal });
        return {
          ...(response.StatusCode !== undefined && { statusCode: response.StatusCode }),
          ...(response.FunctionError !== undefined && { functionError: response.FunctionError }),
          ...(response.Payload !== undefined && { payload: response.Payload }),
        };
      } catch (error) {
        // A refusal by the Lambda service (403 AccessDenied, 404 no such function, 429 throttled) keeps its status for the audit.
        const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
        if (!signal.aborted && status !== undefined) throw new HookUnavailableError('status', { status, cause: error });
        throw error;
      }
    },
  };
}
