/**
 * The old system as a Lambda function (PASSLANE_MIGRATION_FUNCTION), invoked synchronously with
 * the same JSON as the HTTPS form; IAM signs the request (the caller's role needs
 * lambda:InvokeFunction on it). The only module that imports @aws-sdk/client-lambda at run time,
 * and the Node platform imports it only when the function is configured: other logins never
 * load it (the Lambda bundles keep it in a chunk of its own).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { FunctionMigrationConfig } from './settings.js';
import { utf8 } from 'passlane/encoding';
import { connectionSettings } from '../../shared/aws-connection.js';
import { MigrationUnavailableError, type MigrationSource } from './migration-source.js';
import { MAX_ANSWER_BYTES, readExistsAnswer, readMigrationAnswer } from './read-answer.js';
import { withinTimeout } from './within-timeout.js';

export function createLambdaMigrationSource(config: Pick<FunctionMigrationConfig, 'functionName' | 'timeoutMs' | 'connection'>): MigrationSource & { destroy(): void } {
  const { functionName, timeoutMs } = config;
  const client = new LambdaClient({
    ...connectionSettings(config.connection),
    // One attempt: a retry would be a second password check against the old system (and its own lockout).
    maxAttempts: 1,
    requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true },
  });
  /** One synchronous invoke with `question` as the event; the answer's payload. */
  const ask = (question: object) =>
    withinTimeout(timeoutMs, async (signal) => {
      const command = new InvokeCommand({ FunctionName: functionName, InvocationType: 'RequestResponse', Payload: utf8(JSON.stringify(question)) });
      let response;
      try {
        response = await client.send(command, { abortSignal: signal });
      } catch (error) {
        // A refusal by the Lambda service (403 AccessDenied, 404 no such function, 429 throttled) keeps its status for the audit.
        const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
        if (!signal.aborted && status !== undefined) throw new MigrationUnavailableError('status', { status, cause: error });
        throw error;
      }
      if (response.StatusCode !== 200) throw new MigrationUnavailableError('status', { ...(response.StatusCode !== undefined && { status: response.StatusCode }) });
      // The payload is then the error's description, which may quote the event: not kept.
      if (response.FunctionError !== undefined) throw new MigrationUnavailableError('function_error');
      const payload = response.Payload ?? new Uint8Array(0);
      if (payload.byteLength > MAX_ANSWER_BYTES) throw new MigrationUnavailableError('malformed_answer');
      return new TextDecoder().decode(payload);
    });
  return {
    destroy: () => client.destroy(),
    check: async (email, password) => readMigrationAnswer(await ask({ email, password })),
    holds: async (email) => readExistsAnswer(await ask({ question: 'exists', email })),
  };
}
