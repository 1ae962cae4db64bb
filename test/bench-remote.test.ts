/**
 * `passlane bench --remote` against a local endpoint speaking the Lambda API, which runs the real
 * bench handler in-process: the SDK client, the waiting on updates, the restore, the combining.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { handler as benchHandler } from '../functions/bench.js';
import { combineRemoteResults, type RemoteInvocation } from '../packages/server/src/cli/bench/remote/combine.js';
import { DEFAULT_LAMBDA_PRICES, costPerMillion } from '../packages/server/src/cli/bench/remote/lambda-pricing.js';
import { startLocalLambdaApi, type LocalLambdaApi, type LocalLambdaHandler } from '../packages/server/src/cli/bench/remote/local-lambda-api.js';
import { runRemoteBench } from '../packages/server/src/cli/bench/remote/run-remote.js';
import { createSdkLambdaControl } from '../packages/server/src/cli/bench/remote/sdk-lambda-control.js';
import { summarize } from '../packages/server/src/cli/bench/statistics.js';
import type { BenchResult } from '../packages/server/src/cli/bench/types.js';
import { runBenchCommand } from '../packages/server/src/cli/commands/bench.js';

const TINY_EVENT = { grid: { backends: ['native' as const], memoryKiB: [64, 128], passes: [1], lanes: [1] }, quick: true, rounds: 3, clients: [1] };
const realHandler: LocalLambdaHandler = (event, context) => benchHandler(event as never, context);

const apis: LocalLambdaApi[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((a) => a.stop()));
  vi.unstubAllEnvs();
});
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function localApi(functions: Parameters<typeof startLocalLambdaApi>[0]['functions'], pendingPolls = 2) {
  const api = await startLocalLambdaApi({ functions, pendingPolls });
  apis.push(api);
  const control = createSdkLambdaControl({
    endpoint: api.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    pollIntervalMs: 5,
  });
  return { api, control };
}

const puts = (api: LocalLambdaApi, name: string) =>
  api.calls.filter((c) => c.functionName === name && c.method === 'PUT').map((c) => c.memorySizeMB);

describe('remote bench orchestration', () => {
  it('sets each memory size, invokes the real handler, restores the original, combines', async () => {
    const { api, control } = await localApi({
      'bench-x86': { handler: realHandler, memorySizeMB: 256, architecture: 'x86_64' },
      'bench-arm': { handler: realHandler, memorySizeMB: 2048, architecture: 'arm64' },
    });
    try {
      const result = await runRemoteBench(control, {
        functions: ['bench-x86', 'bench-arm'],
        memorySizesMB: [512, 1024],
        event: TINY_EVENT,
        prices: DEFAULT_LAMBDA_PRICES,
      });
      expect(puts(api, 'bench-x86')).toEqual([512, 1024, 256]);
      expect(puts(api, 'bench-arm')).toEqual([512, 1024, 2048]);
      expect(api.memorySizeOf('bench-x86')).toBe(256);
      expect(api.memorySizeOf('bench-arm')).toBe(2048);
      // Each invocation ran at the size just set (the handler saw it in its context).
      expect(result.invocations.map((i) => [i.functionName, i.memorySizeMB, i.result?.environment.lambda?.memorySizeMB])).toEqual([
        ['bench-x86', 512, 512],
        ['bench-x86', 1024, 1024],
        ['bench-arm', 512, 512],
        ['bench-arm', 1024, 1024],
      ]);
      expect(result.restoreFailures).toEqual([]);
      expect(result.rows).toHaveLength(4);
      expect(result.rows.map((r) => r.architecture)).toEqual(['x86_64', 'x86_64', 'arm64', 'arm64']);
      // A tiny grid never fits (below the floor): the floor is reported with a warning.
      expect(result.rows.every((r) => r.fits === false && r.params?.memoryKiB === 19456)).toBe(true);
      expect(result.reasoning.join('\n')).toMatch(/no memory size produced a usable result|WARNING/);
    } finally {
      control.destroy();
    }
  });

  it('restores the original memory size when an invocation fails, and keeps the other sizes', async () => {
    const failing: LocalLambdaHandler = async (event, context) => {
      if (context.memoryLimitInMB === '1024') throw new RangeError('Runtime exited: out of memory');
      return realHandler(event, context);
    };
    const { api, control } = await localApi({ bench: { handler: failing, memorySizeMB: 3008, architecture: 'arm64' } });
    try {
      const result = await runRemoteBench(control, { functions: ['bench'], memorySizesMB: [512, 1024, 1769], event: TINY_EVENT, prices: DEFAULT_LAMBDA_PRICES });
      expect(puts(api, 'bench')).toEqual([512, 1024, 1769, 3008]);
      expect(api.memorySizeOf('bench')).toBe(3008);
      expect(result.invocations.map((i) => [i.memorySizeMB, i.error ?? 'ok'])).toEqual([
        [512, 'ok'],
        [1024, expect.stringMatching(/bench failed \(Unhandled\): RangeError: Runtime exited: out of memory/)],
        [1769, 'ok'],
      ]);
      expect(result.rows.find((r) => r.memorySizeMB === 1024)?.error).toMatch(/out of memory/);
    } finally {
      control.destroy();
    }
  });

  it('restores when setting a memory size is refused, and stops that function there', async () => {
    const { api, control } = await localApi({ bench: { handler: realHandler, memorySizeMB: 1024 } });
    try {
      const result = await runRemoteBench(control, { functions: ['bench'], memorySizesMB: [512, 99_999, 2048], event: TINY_EVENT, prices: DEFAULT_LAMBDA_PRICES });
      expect(puts(api, 'bench')).toEqual([512, 99_999, 1024]); // 99999 refused, then restored
      expect(api.memorySizeOf('bench')).toBe(1024);
      expect(result.invocations.map((i) => i.memorySizeMB)).toEqual([512, 99_999]);
      expect(result.invocations[1]!.error).toMatch(/could not set memory: .*MemorySize/);
    } finally {
      control.destroy();
    }
  });

  it('refuses an architecture no listed function has, before changing anything', async () => {
    const { api, control } = await localApi({ bench: { handler: realHandler, memorySizeMB: 1024, architecture: 'x86_64' } });
    try {
      await expect(
        runRemoteBench(control, { functions: ['bench'], memorySizesMB: [512], architectures: ['arm64'], event: {}, prices: DEFAULT_LAMBDA_PRICES }),
      ).rejects.toThrow(/no function given for arm64/);
      expect(puts(api, 'bench')).toEqual([]);
    } finally {
      control.destroy();
    }
  });

  it('passlane bench --remote: flags, SDK with --endpoint, table and files', async () => {
    // The CLI polls once a second: no simulated update delay here, to keep the test short.
    const { api, control } = await localApi({ 'passlane-bench': { handler: realHandler, memorySizeMB: 128, architecture: 'arm64' } }, 0);
    control.destroy();
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    const out = await mkdtemp(join(tmpdir(), 'passlane-remote-'));
    dirs.push(out);
    const lines: string[] = [];
    const stdout = { write: (text: string) => lines.push(text) > 0 } as unknown as NodeJS.WritableStream;
    const stderr = { write: () => true, isTTY: false } as unknown as NodeJS.WritableStream;
    const code = await runBenchCommand(
      ['--remote', 'passlane-bench', '--memory', '512,1769', '--arch', 'arm64', '--region', 'us-east-1', '--endpoint', api.endpoint, '--out', out,
        '--quick', '--backend', 'native', '--argon2-memory', '64', '--passes', '1', '--lanes', '1', '--rounds', '2', '--clients', '1', '--price-arm64-gbs', '0.00002'],
      { stdout, stderr },
    );
    expect(code).toBe(0);
    expect(puts(api, 'passlane-bench')).toEqual([512, 1769, 128]);
    const table = lines.join('\n');
    expect(table).toMatch(/passlane-bench\s+arm64\s+512/);
    expect(table).toMatch(/arm64 \$0.00002\/GB-s/);
    expect(table).toMatch(/bench-remote.json/);
  });
});

describe('cost per million logins', () => {
  it('bills whole milliseconds of GB-seconds plus the request price', () => {
    // 20 ms at 1024 MB on x86_64: 0.02 s x 1 GB x $0.0000166667 x 1e6 + $0.20
    expect(costPerMillion(20, 1024, 'x86_64')).toBeCloseTo(0.333334 + 0.2, 9);
    // 10.2 ms is billed as 11 ms; 2048 MB on arm64
    expect(costPerMillion(10.2, 2048, 'arm64')).toBeCloseTo(0.011 * 2 * 0.0000133334 * 1e6 + 0.2, 9);
    expect(costPerMillion(10, 1024, 'x86_64', { ...DEFAULT_LAMBDA_PRICES, perMillionRequests: 0 })).toBeCloseTo(0.166667, 9);
  });

  it('combines results: the strongest fitting parameters, then the cheapest size running them', () => {
    const result = (memoryMB: number, recommended: { m: number; t: number; fits: boolean }, medians: Record<string, number>): BenchResult =>
      ({
        schema: 'passlane-bench/1',
        candidates: Object.entries(medians).map(([key, median]) => {
          const [m, t] = key.split('/').map(Number) as [number, number];
          return { backend: 'native', memoryKiB: m, passes: t, lanes: 1, id: `native m=${m} t=${t} p=1`, single: { wallMs: summarize([median]), cpuMs: summarize([median]) } };
        }),
        recommendations: [
          { backend: 'native', fits: recommended.fits, params: { memoryKiB: recommended.m, passes: recommended.t, lanes: 1 }, rejected: [], reasoning: [] },
        ],
        environment: { lambda: { memorySizeMB: memoryMB } },
      }) as unknown as BenchResult;
    const invocations: RemoteInvocation[] = [
      { functionName: 'f', architecture: 'x86_64', memorySizeMB: 512, result: result(512, { m: 19456, t: 2, fits: false }, { '19456/2': 40 }) },
      { functionName: 'f', architecture: 'x86_64', memorySizeMB: 1024, result: result(1024, { m: 47104, t: 2, fits: true }, { '19456/2': 20, '47104/2': 50 }) },
      { functionName: 'f', architecture: 'x86_64', memorySizeMB: 2048, result: result(2048, { m: 47104, t: 2, fits: true }, { '19456/2': 10, '47104/2': 30 }) },
      { functionName: 'f', architecture: 'x86_64', memorySizeMB: 4096, error: 'timed out' },
    ];
    const summary = combineRemoteResults(invocations, DEFAULT_LAMBDA_PRICES);
    expect(summary.rows).toHaveLength(4);
    const at = (mb: number) => summary.rows.find((r) => r.memorySizeMB === mb)!;
    expect(at(1024)).toMatchObject({ billedMs: 50, medianMs: 50, costPerMillionUsd: expect.closeTo(0.05 * 1 * 16.6667 + 0.2, 6) });
    expect(at(2048)).toMatchObject({ billedMs: 30, costPerMillionUsd: expect.closeTo(0.03 * 2 * 16.6667 + 0.2, 6) });
    expect(at(512).reference).toMatchObject({ medianMs: 40, costPerMillionUsd: expect.closeTo(0.04 * 0.5 * 16.6667 + 0.2, 6) });
    expect(at(4096)).toMatchObject({ fits: false, error: 'timed out' });
    // m=47104 t=2 fits at 1024 and 2048; 1024 is cheaper (1.033 vs 1.2).
    expect(summary.best).toMatchObject({ memorySizeMB: 1024, params: { memoryKiB: 47104, passes: 2 } });
    expect(summary.reasoning.join('\n')).toMatch(/4096 MB failed: timed out/);
  });
});
