import { utf8 } from 'passlane/encoding';
import { HookUnavailableError } from './errors.js';
import type { HookCaller } from './hook-caller.js';
import { MAX_HOOK_ANSWER_BYTES, parseAnswer } from './read-answer.js';
import { withinTimeout } from './within-timeout.js';

/**
 * What a hook needs of AWS Lambda: one synchronous invoke (RequestResponse). The SDK's client
 * (aws-lambda-invoker.ts) is one; tests hand a stand-in, since Lambda cannot run here.
 */
export interface LambdaInvoker {
  invoke(input: { functionName: string; payload: Uint8Array; signal: AbortSignal }): Promise<LambdaInvokeResult>;
}

export interface LambdaInvokeResult {
  /** Lambda's own status for a synchronous invoke: 200 when the function ran. */
  statusCode?: number;
  /** Set when the function threw: the payload is then the error's description. */
  functionError?: string;
  payload?: Uint8Array;
}

/** A hook as a Lambda function: the event as its input, its return value as the answer. */
export function createLambdaHook(options: { functionName: string; timeoutMs: number; invoker: LambdaInvoker }): HookCaller {
  const { functionName, timeoutMs, invoker } = options;
  return (event) =>
    withinTimeout(timeoutMs, async (signal) => {
      const result = await invoker.invoke({ functionName, payload: utf8(JSON.stringify(event)), signal });
      if (result.statusCode !== 200) throw new HookUnavailableError('status', { ...(result.statusCode !== undefined && { status: result.statusCode }) });
      // The payload is then the error's description, which may quote the event: not kept.
      if (result.functionError !== undefined) throw new HookUnavailableError('function_error');
      const payload = result.payload ?? new Uint8Array(0);
      if (payload.byteLength > MAX_HOOK_ANSWER_BYTES) throw new HookUnavailableError('answer_too_large');
      return parseAnswer(new TextDecoder().decode(payload));
    });
}
