import { describe, expect, it } from 'vitest';
import { createPasswordHasher, detectRuntime, BackendUnavailableError } from '../src/index.js';
import { createWasmBackend } from '../src/hashing/backends/wasm.js';
import { loadArgon2WasmModule } from '../src/hashing/backends/wasm/load-wasm-module-node.js';
import { createPasswordHasherWith, type HasherLogger } from '../src/hashing/create-password-hasher.js';

describe('detectRuntime', () => {
  it.each([
    ['workerd', { navigator: { userAgent: 'Cloudflare-Workers' } }],
    ['edge-light', { EdgeRuntime: 'edge-runtime' }],
    ['deno', { Deno: {}, process: { release: { name: 'node' } } }],
    ['bun', { Bun: {}, process: { release: { name: 'node' } } }],
    ['lambda', { process: { release: { name: 'node' }, env: { AWS_LAMBDA_FUNCTION_NAME: 'login' } } }],
    ['node', { process: { release: { name: 'node' }, env: {} } }],
    ['browser', { document: {} }],
    ['unknown', {}],
  ] as const)('names %s', (expected, globals) => {
    expect(detectRuntime(globals)).toBe(expected);
  });

  it('names this process node', () => {
    expect(detectRuntime()).toBe('node');
  });
});

describe('backend choice', () => {
  it('picks native on Node by default and WASM when asked, by option or by PASSLANE_ARGON2_BACKEND', async () => {
    expect(await createPasswordHasher({ env: {} }).backendName()).toBe('native');
    expect(await createPasswordHasher({ backend: 'wasm' }).backendName()).toBe('wasm');
    expect(await createPasswordHasher({ env: { PASSLANE_ARGON2_BACKEND: 'wasm' } }).backendName()).toBe('wasm');
    expect(await createPasswordHasher({ env: { PASSLANE_ARGON2_BACKEND: 'native' } }).backendName()).toBe('native');
    expect(await createPasswordHasher({ env: { PASSLANE_ARGON2_BACKEND: '' } }).backendName()).toBe('native');
    expect(() => createPasswordHasher({ env: { PASSLANE_ARGON2_BACKEND: 'gpu' } })).toThrow(/PASSLANE_ARGON2_BACKEND must be one of auto, native, wasm/);
  });

  it('falls back to WASM when the native binding fails to load, and says so once', async () => {
    const warnings: string[] = [];
    const logger: HasherLogger = { warn: (message) => warnings.push(message) };
    const module = await loadArgon2WasmModule();
    const loaders = {
      native: async () => {
        throw new Error('Cannot find native binding');
      },
      wasm: (options: { retainMemoryKiB: number }) => createWasmBackend(module, options),
      runtime: () => 'lambda' as const,
    };
    const hasher = createPasswordHasherWith({ logger, pepper: false }, loaders);
    const stored = await hasher.hash('correct horse battery staple');
    expect((await hasher.verify(stored, 'correct horse battery staple')).ok).toBe(true);
    expect(await hasher.backendName()).toBe('wasm');
    expect(warnings).toEqual(['native argon2 binding unavailable; using the WASM backend']);

    const explicit = createPasswordHasherWith({ logger, backend: 'native' }, loaders);
    await expect(explicit.hash('correct horse battery staple')).rejects.toBeInstanceOf(BackendUnavailableError);
  });

  it('uses WASM on runtimes that cannot load native addons, without trying native', async () => {
    const module = await loadArgon2WasmModule();
    let nativeTried = false;
    const hasher = createPasswordHasherWith(
      { pepper: false },
      {
        native: async () => {
          nativeTried = true;
          throw new Error('unreachable');
        },
        wasm: (options) => createWasmBackend(module, options),
        runtime: () => 'workerd',
      },
    );
    expect(await hasher.backendName()).toBe('wasm');
    expect(nativeTried).toBe(false);
  });
});
