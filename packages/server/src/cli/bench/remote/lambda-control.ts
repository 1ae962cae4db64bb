/**
 * The three Lambda API calls the remote bench needs, behind an interface: the SDK implements it
 * against AWS (or any endpoint speaking the Lambda API, as the tests' local one does).
 */
import type { LambdaArchitecture } from './lambda-pricing.js';

export interface LambdaFunctionConfiguration {
  functionName: string;
  memorySizeMB: number;
  architecture: LambdaArchitecture;
  timeoutSeconds?: number;
}

export interface LambdaControl {
  getConfiguration(functionName: string): Promise<LambdaFunctionConfiguration>;
  /** Resolves once the update has finished (LastUpdateStatus Successful); rejects if it failed. */
  setMemorySize(functionName: string, memorySizeMB: number): Promise<void>;
  /** Synchronous invocation; rejects with LambdaInvocationError when the function threw. */
  invoke(functionName: string, payload: unknown): Promise<unknown>;
}

export class LambdaInvocationError extends Error {
  override name = 'LambdaInvocationError';
  constructor(
    message: string,
    readonly functionError: string,
    readonly errorType?: string,
  ) {
    super(message);
  }
}
