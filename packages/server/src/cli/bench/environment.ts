/** What machine a result came from. Node-only (os, fs); every read that can fail falls back. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { detectRuntime } from 'passlane/runtime';
import type { EnvironmentInfo } from './types.js';

const MiB = 1024 * 1024;

/** cgroup v2 memory.max, else v1's limit; undefined when unlimited or unreadable. */
export function readCgroupMemoryLimitMiB(read: (path: string) => string = (p) => readFileSync(p, 'utf8')): number | undefined {
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const text = read(path).trim();
      if (text === 'max') return undefined;
      const bytes = Number(text);
      // v1 reports "unlimited" as a huge page-aligned number.
      if (Number.isFinite(bytes) && bytes > 0 && bytes < 2 ** 60) return Math.floor(bytes / MiB);
    } catch {
      // not this cgroup version, or not Linux
    }
  }
  return undefined;
}

/**
 * An installed package's version: its package.json, found by walking up from the file its name
 * resolves to (exports maps hide `<name>/package.json`; in a clone `passlane` resolves to the
 * workspace). 'unknown' where nothing is installed beside the code (a bundled Lambda zip).
 */
function packageVersion(name: string): string {
  try {
    let dir = dirname(createRequire(import.meta.url).resolve(name));
    for (;;) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === name && pkg.version) return pkg.version;
      } catch {
        // no package.json here: further up
      }
      const parent = dirname(dir);
      if (parent === dir) return 'unknown';
      dir = parent;
    }
  } catch {
    return 'unknown';
  }
}

export const lambdaArchitectureOf = (arch: string): string => (arch === 'x64' ? 'x86_64' : arch);

export function describeEnvironment(options: { lambdaMemorySizeMB?: number } = {}): EnvironmentInfo {
  const env = process.env;
  const cpus = os.cpus();
  const lambdaMemory = options.lambdaMemorySizeMB ?? (Number(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE) || undefined);
  const cgroup = readCgroupMemoryLimitMiB();
  const totalMemoryMiB = Math.floor(os.totalmem() / MiB);
  const onLambda = env.AWS_LAMBDA_FUNCTION_NAME !== undefined || lambdaMemory !== undefined;
  return {
    cpuModel: cpus[0]?.model.trim() || 'unknown',
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    totalMemoryMiB,
    ...(cgroup !== undefined && { cgroupMemoryLimitMiB: cgroup }),
    memoryLimitMiB: lambdaMemory ?? Math.min(cgroup ?? Infinity, totalMemoryMiB),
    runtime: detectRuntime(),
    nodeVersion: process.versions.node,
    platform: process.platform,
    arch: process.arch,
    lambdaArchitecture: lambdaArchitectureOf(process.arch),
    uvThreadpoolSize: uvThreadpoolSize(),
    loadAverage1m: os.loadavg()[0] ?? 0,
    libraries: {
      passlane: packageVersion('passlane'),
      '@node-rs/argon2': packageVersion('@node-rs/argon2'),
      v8: process.versions.v8,
    },
    ...(onLambda && {
      lambda: {
        ...(env.AWS_LAMBDA_FUNCTION_NAME && { functionName: env.AWS_LAMBDA_FUNCTION_NAME }),
        ...(lambdaMemory !== undefined && { memorySizeMB: lambdaMemory }),
        ...(env.AWS_REGION && { region: env.AWS_REGION }),
        ...(env.AWS_EXECUTION_ENV && { executionEnv: env.AWS_EXECUTION_ENV }),
      },
    }),
  };
}

/** libuv's threadpool (default 4) bounds how many native hashes run at the same time. */
export function uvThreadpoolSize(): number {
  const size = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(size) && size >= 1 ? Math.min(size, 1024) : 4;
}
