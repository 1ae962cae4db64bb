/**
 * Power tuning for the hash: for each bench function (one per architecture: Lambda fixes the
 * architecture with the code package, and the native binding inside it is per-architecture),
 * set each memory size, invoke the bench, and restore the original memory size afterwards,
 * always, also when an invocation or an update fails.
 */
import type { BenchEvent } from '../lambda-event.js';
import type { BenchResult } from '../types.js';
import { combineRemoteResults, type RemoteInvocation, type RemoteSummary } from './combine.js';
import type { LambdaControl } from './lambda-control.js';
import type { LambdaArchitecture, LambdaPrices } from './lambda-pricing.js';

export interface RemoteBenchOptions {
  functions: string[];
  memorySizesMB: number[];
  /** Only functions of these architectures; an architecture with no function is an error. */
  architectures?: LambdaArchitecture[];
  event: BenchEvent;
  prices: LambdaPrices;
  log?: (line: string) => void;
}

export interface RemoteBenchResult extends RemoteSummary {
  schema: 'passlane-bench-remote/1';
  startedAt: string;
  finishedAt: string;
  prices: LambdaPrices;
  event: BenchEvent;
  invocations: RemoteInvocation[];
  /** Functions whose original memory size could not be restored: fix these by hand. */
  restoreFailures: string[];
}

const isBenchResult = (value: unknown): value is BenchResult =>
  typeof value === 'object' && value !== null && (value as { schema?: unknown }).schema === 'passlane-bench/1';

export async function runRemoteBench(control: LambdaControl, options: RemoteBenchOptions): Promise<RemoteBenchResult> {
  const log = options.log ?? (() => undefined);
  const startedAt = new Date().toISOString();
  const originals = [];
  for (const name of options.functions) originals.push(await control.getConfiguration(name));
  const selected = options.architectures ? originals.filter((c) => options.architectures!.includes(c.architecture)) : originals;
  for (const arch of options.architectures ?? []) {
    if (!selected.some((c) => c.architecture === arch)) {
      throw new Error(`no function given for ${arch}: deploy the bench function for ${arch} and list it in --remote`);
    }
  }

  const invocations: RemoteInvocation[] = [];
  const restoreFailures: string[] = [];
  for (const original of selected) {
    const name = original.functionName;
    try {
      for (const size of options.memorySizesMB) {
        log(`${name} (${original.architecture}): memory ${size} MB`);
        try {
          await control.setMemorySize(name, size);
        } catch (error) {
          const message = `could not set memory: ${error instanceof Error ? error.message : String(error)}`;
          log(`${name} at ${size} MB: ${message}`);
          invocations.push({ functionName: name, architecture: original.architecture, memorySizeMB: size, error: message });
          break;
        }
        try {
          const result = await control.invoke(name, options.event);
          if (!isBenchResult(result)) throw new Error('the function did not return a passlane bench result');
          invocations.push({ functionName: name, architecture: original.architecture, memorySizeMB: size, result });
        } catch (error) {
          // One size failing (too little memory for the grid, a timeout) should not lose the others.
          const message = error instanceof Error ? error.message : String(error);
          log(`${name} at ${size} MB failed: ${message}`);
          invocations.push({ functionName: name, architecture: original.architecture, memorySizeMB: size, error: message });
        }
      }
    } finally {
      log(`${name}: restoring memory ${original.memorySizeMB} MB`);
      try {
        await control.setMemorySize(name, original.memorySizeMB);
      } catch (error) {
        restoreFailures.push(`${name}: could not restore ${original.memorySizeMB} MB: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return {
    schema: 'passlane-bench-remote/1',
    startedAt,
    finishedAt: new Date().toISOString(),
    prices: options.prices,
    event: options.event,
    invocations,
    restoreFailures,
    ...combineRemoteResults(invocations, options.prices),
  };
}
