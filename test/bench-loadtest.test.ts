/** The login load test, tiny and bounded, against the local server started in-process. No timing assertions. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatLoadReport, runLoadTestCommand, type LoadTestReport } from '../bench/loadtest.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { withLiftedLoginLimits } from '../bench/load/lifted-limits.js';
import { isLoopbackUrl, runLoginLoad, type LoadLevelResult } from '../bench/load/login-load.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const quiet = { stdout: (_: string) => undefined, stderr: (_: string) => undefined };

describe('login load test', () => {
  it('registers an account, runs a burst and sustained clients, reports statuses and the hash-only ceiling', async () => {
    const out = await mkdtemp(join(tmpdir(), 'passlane-loadtest-out-'));
    dirs.push(out);
    const lines: string[] = [];
    const report = await runLoadTestCommand(
      ['--bursts', '3', '--burst-repeats', '1', '--clients', '1,2', '--max-requests', '4', '--max-seconds', '20', '--ceiling-rounds', '2', '--out', out],
      { ...quiet, stdout: (text) => lines.push(text) },
    );
    expect(report!.local).toBe(true);
    expect(report!.load.levels.map((l) => [l.kind, l.concurrency])).toEqual([
      ['burst', 3],
      ['sustained', 1],
      ['sustained', 2],
    ]);
    for (const level of report!.load.levels) {
      expect(level.requests).toBeGreaterThan(0);
      expect(level.requests).toBeLessThanOrEqual(4);
      // Every answer is counted by status; with the limits raised, these few logins succeed.
      expect(Object.values(level.statuses).reduce((a, b) => a + b, 0)).toBe(level.requests);
      expect(level.statuses['200']).toBe(level.requests);
      expect(level.cpuMsPerLogin).toBeGreaterThan(0);
    }
    expect(report!.hashOnly).toMatchObject({ candidateId: 'native m=19456 t=2 p=1', ceilingPerSecond: expect.any(Number) });
    expect(lines.join('\n')).toMatch(/of the hash-only ceiling/);
    expect(JSON.parse(await readFile(join(out, 'loadtest.json'), 'utf8'))).toMatchObject({ schema: 'passlane-loadtest/1' });
  });

  it('refuses non-loopback targets without --allow-remote', async () => {
    await expect(runLoadTestCommand(['--url', 'https://example.com'], quiet)).rejects.toThrow(/not a loopback address/);
    expect(isLoopbackUrl('http://127.0.0.1:3000')).toBe(true);
    expect(isLoopbackUrl('http://localhost:3000')).toBe(true);
    expect(isLoopbackUrl('http://[::1]:3000')).toBe(true);
    expect(isLoopbackUrl('http://127.0.0.1.example.com')).toBe(false);
    expect(isLoopbackUrl('http://10.0.0.1')).toBe(false);
  });

  it('never follows a redirect: the loopback check would not cover where it points', async () => {
    // Both on loopback: `elsewhere` stands for a host the check would have refused.
    let elsewhereHits = 0;
    const listen = async (server: Server) => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      return `http://127.0.0.1:${address.port}`;
    };
    const elsewhere = createServer((_, res) => {
      elsewhereHits++;
      res.end('{}');
    });
    const elsewhereUrl = await listen(elsewhere);
    const redirecting = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: `${elsewhereUrl}/login` }).end();
    });
    const url = await listen(redirecting);
    try {
      const result = await runLoginLoad({
        url,
        email: 'load@example.com',
        password: 'not a real password',
        burstSizes: [2],
        burstRepeats: 1,
        clients: [1],
        maxRequests: 2,
        maxSecondsPerLevel: 5,
        maxSeconds: 10,
      });
      expect(result.levels.map((l) => l.statuses)).toEqual([{ '307': 2 }, { '307': 2 }]);
      expect(elsewhereHits).toBe(0);
    } finally {
      for (const server of [redirecting, elsewhere]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('shows each sustained level against the best one, and the most clients against it in a line', () => {
    const level = (concurrency: number, loginsPerSecond: number): LoadLevelResult => ({
      kind: 'sustained',
      concurrency,
      requests: 100,
      ok: 100,
      seconds: 1,
      loginsPerSecond,
      statuses: { '200': 100 },
    });
    const report: LoadTestReport = {
      schema: 'passlane-loadtest/1',
      target: 'http://127.0.0.1:3000',
      local: false,
      startedAt: new Date(0).toISOString(),
      load: { levels: [level(1, 40), level(2, 80), level(16, 60)], skipped: [], seconds: 3 },
    };
    const text = formatLoadReport(report);
    expect(text).toMatch(/vs best/);
    expect(text).toMatch(/^2 clients .* 100% /m);
    expect(text).toMatch(/^16 clients .* 75% /m);
    expect(text).toContain('16 clients: 60.0 logins/s, 75% of the best level (2 clients, 80.0 logins/s)');
  });

  it('lifts the login limits with variables this configuration accepts', () => {
    const env = withLiftedLoginLimits({ PASSLANE_TABLE: 'bench' });
    expect(() => readConfig(env)).not.toThrow();
    expect(env.PASSLANE_LOGIN_LIMIT_PER_IP).toBe('1000000');
    // bench:login refreshes one session hundreds of times: the per-session budget at its maximum.
    expect(readConfig(env).sessions.refreshesPerSessionPerHour).toBe(10_000);
    expect(env.PASSLANE_TABLE).toBe('bench');
    // A setting of the caller's own that is wrong still fails, naming it.
    expect(() => withLiftedLoginLimits({ PASSLANE_LOGIN_LIMIT_WINDOW_S: 'soon' })).toThrow(/PASSLANE_LOGIN_LIMIT_WINDOW_S/);
  });

  it('splits sustained levels over rounds, within each level\'s request bound, and reports each level once', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const rounds: number[] = [];
    try {
      const result = await runLoginLoad({
        url: `http://127.0.0.1:${address.port}`,
        email: 'load@example.com',
        password: 'not a real password',
        burstSizes: [],
        burstRepeats: 1,
        clients: [1, 2],
        rounds: 3,
        maxRequests: 6,
        maxSecondsPerLevel: 30,
        maxSeconds: 60,
        onRound: (round) => rounds.push(round),
      });
      expect(rounds).toEqual([0, 1, 2]);
      expect(result.levels.map((l) => [l.concurrency, l.requests, l.ok])).toEqual([
        [1, 6, 6],
        [2, 6, 6],
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
