/**
 * LambdaControl on @aws-sdk/client-lambda. IAM: lambda:GetFunctionConfiguration,
 * lambda:UpdateFunctionConfiguration, lambda:InvokeFunction on the bench function(s).
 */
import {
  GetFunctionConfigurationCommand,
  InvokeCommand,
  LambdaClient,
  UpdateFunctionConfigurationCommand,
  type FunctionConfiguration,
  type LambdaClientConfig,
} from '@aws-sdk/client-lambda';
import { LambdaInvocationError, type LambdaControl, type LambdaFunctionConfiguration } from './lambda-control.js';

export interface SdkLambdaControlOptions {
  region?: string;
  /** Another endpoint speaking the Lambda API (the tests' local one); AWS by default. */
  endpoint?: string;
  credentials?: LambdaClientConfig['credentials'];
  /** How long to wait for a configuration update, ms (default 5 min). */
  updateTimeoutMs?: number;
  pollIntervalMs?: number;
  /** A bench invocation may run up to Lambda's 15 minutes. */
  invokeTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function toConfiguration(functionName: string, c: FunctionConfiguration): LambdaFunctionConfiguration {
  if (c.MemorySize === undefined) throw new Error(`${functionName}: the configuration has no MemorySize`);
  return {
    functionName: c.FunctionName ?? functionName,
    memorySizeMB: c.MemorySize,
    architecture: c.Architectures?.[0] === 'arm64' ? 'arm64' : 'x86_64',
    ...(c.Timeout !== undefined && { timeoutSeconds: c.Timeout }),
  };
}

export function createSdkLambdaControl(options: SdkLambdaControlOptions = {}): LambdaControl & { destroy(): void } {
  const common: LambdaClientConfig = {
    ...(options.region && { region: options.region }),
    ...(options.endpoint && { endpoint: options.endpoint }),
    ...(options.credentials && { credentials: options.credentials }),
  };
  const client = new LambdaClient(common);
  // A retried invocation would run (and bill) the whole bench again: one attempt, a long timeout.
  const invoker = new LambdaClient({ ...common, maxAttempts: 1, requestHandler: { requestTimeout: options.invokeTimeoutMs ?? 16 * 60 * 1000 } });
  const updateTimeoutMs = options.updateTimeoutMs ?? 5 * 60 * 1000;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;

  async function waitUntilUpdated(functionName: string): Promise<void> {
    const deadline = Date.now() + updateTimeoutMs;
    for (;;) {
      const c = await client.send(new GetFunctionConfigurationCommand({ FunctionName: functionName }));
      if (c.LastUpdateStatus === 'Failed') {
        throw new Error(`${functionName}: configuration update failed: ${c.LastUpdateStatusReason ?? 'no reason given'}`);
      }
      if (c.LastUpdateStatus !== 'InProgress' && c.State !== 'Pending') return;
      if (Date.now() > deadline) throw new Error(`${functionName}: configuration update still in progress after ${updateTimeoutMs} ms`);
      await sleep(pollIntervalMs);
    }
  }

  return {
    destroy() {
      client.destroy();
      invoker.destroy();
    },
    async getConfiguration(functionName) {
      return toConfiguration(functionName, await client.send(new GetFunctionConfigurationCommand({ FunctionName: functionName })));
    },
    async setMemorySize(functionName, memorySizeMB) {
      // An update in flight (someone else's) refuses ours with ResourceConflictException.
      await waitUntilUpdated(functionName);
      await client.send(new UpdateFunctionConfigurationCommand({ FunctionName: functionName, MemorySize: memorySizeMB }));
      await waitUntilUpdated(functionName);
    },
    async invoke(functionName, payload) {
      const response = await invoker.send(
        new InvokeCommand({ FunctionName: functionName, InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(payload)) }),
      );
      const text = response.Payload ? new TextDecoder().decode(response.Payload) : '';
      if (response.FunctionError) {
        let detail: { errorMessage?: string; errorType?: string } = {};
        try {
          detail = JSON.parse(text) as typeof detail;
        } catch {
          detail = { errorMessage: text };
        }
        throw new LambdaInvocationError(
          `${functionName} failed (${response.FunctionError}): ${detail.errorType ? `${detail.errorType}: ` : ''}${detail.errorMessage ?? 'no message'}`,
          response.FunctionError,
          detail.errorType,
        );
      }
      return text === '' ? undefined : (JSON.parse(text) as unknown);
    },
  };
}
