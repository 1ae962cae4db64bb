/**
 * Names the JavaScript runtime from the signals each one sets. The only place that asks; the
 * hashing core gets adapters and never checks the runtime itself. Order matters: Deno and Bun
 * also expose `process` (and report a Node version), so they are tested before Node.
 */
export type RuntimeName = 'workerd' | 'edge-light' | 'deno' | 'bun' | 'lambda' | 'node' | 'browser' | 'unknown';

interface RuntimeGlobals {
  navigator?: { userAgent?: string };
  EdgeRuntime?: unknown;
  Deno?: unknown;
  Bun?: unknown;
  process?: { release?: { name?: string }; env?: Record<string, string | undefined> };
  document?: unknown;
}

export function detectRuntime(globals: RuntimeGlobals = globalThis as RuntimeGlobals): RuntimeName {
  if (globals.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  if (typeof globals.EdgeRuntime === 'string') return 'edge-light';
  if (globals.Deno !== undefined) return 'deno';
  if (globals.Bun !== undefined) return 'bun';
  if (globals.process?.release?.name === 'node') {
    const env = globals.process.env ?? {};
    return env.AWS_LAMBDA_FUNCTION_NAME || env.AWS_EXECUTION_ENV ? 'lambda' : 'node';
  }
  if (globals.document !== undefined) return 'browser';
  return 'unknown';
}

/** Runtimes that can load a Node-API addon such as @node-rs/argon2. */
export function canLoadNativeAddons(runtime: RuntimeName): boolean {
  return runtime === 'node' || runtime === 'lambda' || runtime === 'bun' || runtime === 'deno';
}
