import type { LambdaInvoker } from '../../hooks/lambda-hook.js';
import type { AwsConnection } from '../../shared/aws-connection.js';

/**
 * A hook's Lambda form (Platform.hookInvoker): a dynamic import, so the Lambda bundles keep the
 * SDK's Lambda client in a chunk read only when a hook names a function. Its own file, so the
 * functions that build their platform by hand (token, passkey login, federation) take it without
 * the hasher node-platform-base.ts brings.
 */
export async function lambdaHookInvoker(connection: AwsConnection, timeoutMs: number): Promise<LambdaInvoker> {
  return (await import('../../hooks/aws-lambda-invoker.js')).createAwsLambdaInvoker(connection, timeoutMs);
}
