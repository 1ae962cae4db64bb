import { describe, expect, it } from 'vitest';
import { createPasswordHasher, detectRuntime, BackendUnavailableError } from '../packages/passlane/src/index.js';
import { createWasmBackend } from '../packages/passlane/src/backends/wasm.js';
import { loadArgon2WasmModule } from '../packages/passlane/src/backends/wasm/load-wasm-module-node.js';
import { createPasswordHasherWith, type HasherLogger } from '../packages/passlane/src/create-password-hasher.js';

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
  it('picks native on Node by default and WASM when asked, and reads no environment', async () => {
    expect(await createPasswordHasher().backendName()).toBe('native');
    expect(await createPasswordHasher({ backend: 'wasm' }).backendName()).toBe('wasm');
    expect(await createPasswordHasher({ backend: 'native' }).backendName()).toBe('native');
    expect(() => createPasswordHasher({ backend: 'gpu' as 'auto' })).toThrow(/backend must be auto, native or wasm/);
    // The library is configured in code only: PASSLANE_ARGON2_BACKEND is the server's to read.
    const saved = process.env.PASSLANE_ARGON2_BACKEND;
    process.env.PASSLANE_ARGON2_BACKEND = 'wasm';
    try {
      expect(await createPasswordHasher().backendName()).toBe('native');
    } finally {
      if (saved === undefined) delete process.env.PASSLANE_ARGON2_BACKEND;
      else process.env.PASSLANE_ARGON2_BACKEND = saved;
    }
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
