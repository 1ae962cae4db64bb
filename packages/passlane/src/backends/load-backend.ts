import { canLoadNativeAddons, detectRuntime, type RuntimeName } from '../detect-runtime.js';
import { BackendUnavailableError, InvalidOptionsError } from '../errors.js';
import type { BackendName, HashingBackend } from './types.js';

export type BackendChoice = 'auto' | BackendName;

export interface HasherLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** How an entry point (Node or edge) provides backends; the hasher never imports them itself. */
export interface BackendLoaders {
  native?: () => Promise<HashingBackend>;
  wasm: (options: { retainMemoryKiB: number }) => Promise<HashingBackend>;
  runtime?: () => RuntimeName;
}

export function chooseBackend(requested: BackendChoice | undefined): BackendChoice {
  const choice = requested ?? 'auto';
  if (choice !== 'auto' && choice !== 'native' && choice !== 'wasm') {
    throw new InvalidOptionsError(`backend must be auto, native or wasm (got ${JSON.stringify(choice)})`);
  }
  return choice;
}

export async function loadBackend(
  choice: BackendChoice,
  loaders: BackendLoaders,
  retainMemoryKiB: number,
  logger: HasherLogger,
): Promise<HashingBackend> {
  const loadNative = async () => {
    if (!loaders.native) throw new BackendUnavailableError('the native backend is not available in this build');
    try {
      return await loaders.native();
    } catch (cause) {
      if (cause instanceof BackendUnavailableError) throw cause;
      throw new BackendUnavailableError('the native argon2 binding failed to load', { cause });
    }
  };
  if (choice === 'native') return loadNative();
  if (choice === 'wasm') return loaders.wasm({ retainMemoryKiB });
  const runtime = (loaders.runtime ?? detectRuntime)();
  if (loaders.native && canLoadNativeAddons(runtime)) {
    try {
      return await loadNative();
    } catch (error) {
      logger.warn('native argon2 binding unavailable; using the WASM backend', {
        runtime,
        error: error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
      });
    }
  }
  return loaders.wasm({ retainMemoryKiB });
}

