import { describe, expect, it } from 'vitest';
import { legacyFixtures } from './support/fixtures.js';
import { runPasslane } from './support/run-process.js';

// Pepper off: these hashes are compared with plain PHC strings.
const passlane = (args: string[], stdin: string) => runPasslane(args, { stdin, env: { PASSLANE_PEPPER_KEYS: '' } });

const PASSWORD = 'correct horse battery staple';

describe('passlane CLI', () => {
  it.each(['native', 'wasm'])('hashes from stdin and verifies (--backend %s)', async (backend) => {
    const hashed = await passlane(['hash', '--backend', backend], `${PASSWORD}\n`);
    expect(hashed.code).toBe(0);
    const stored = hashed.stdout.trim();
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    const match = await passlane(['verify', '--hash', stored, '--backend', backend], PASSWORD);
    expect(match.code).toBe(0);
    expect(JSON.parse(match.stdout)).toEqual({ ok: true, scheme: 'argon2id', needsRehash: false });

    const mismatch = await passlane(['verify', '--hash', stored, '--backend', backend], 'wrong password');
    expect(mismatch.code).toBe(1);
    expect(JSON.parse(mismatch.stdout)).toEqual({ ok: false, scheme: 'argon2id', needsRehash: false });
  });

  it('exits 2 with a message on stderr for an unsupported or malformed hash', async () => {
    const unsupported = await passlane(['verify', '--hash', '$y$j9T$md5$crypt'], PASSWORD);
    expect(unsupported.code).toBe(2);
    expect(unsupported.stdout).toBe('');
    expect(unsupported.stderr).toMatch(/ERR_HASH_UNSUPPORTED/);
    const hostile = await passlane(['verify', '--hash', '$argon2id$v=19$m=4194304,t=1,p=1$c2FsdHNhbHQ$c2FsdHNhbHQ'], PASSWORD);
    expect(hostile.code).toBe(2);
    expect(hostile.stderr).toMatch(/ERR_HASH_PARAMS_OUT_OF_BOUNDS/);
  });

  it('prints needs-rehash for the current policy', async () => {
    const bcrypt = legacyFixtures.hashes.find((f) => f.scheme === 'bcrypt')!;
    expect((await passlane(['needs-rehash', '--hash', bcrypt.hash], '')).stdout).toBe('true\n');
    const own = (await passlane(['hash'], PASSWORD)).stdout.trim();
    expect((await passlane(['needs-rehash', '--hash', own], '')).stdout).toBe('false\n');
  });

  it('verifies JSON lines in order, reports bad lines and goes on, and never echoes passwords', async () => {
    // Distinctive passwords, so "not echoed" can't be confused with the word "password" in a message.
    const fixtures = legacyFixtures.hashes.filter((f) => !f.hash.startsWith('$argon2') && f.password.length >= 10).slice(0, 6);
    const lines = [
      ...fixtures.map((f) => JSON.stringify({ hash: f.hash, password: f.password })),
      'not json',
      JSON.stringify({ hash: '$argon2id$v=19$m=99999999999,t=1,p=1$c2FsdHNhbHQ$c2FsdHNhbHQ', password: 'secret-1' }),
      JSON.stringify({ hash: fixtures[0]!.hash }),
      JSON.stringify({ hash: fixtures[0]!.hash, password: fixtures[0]!.wrongPassword }),
    ];
    const run = await passlane(['verify', '--jsonl'], lines.join('\n') + '\n');
    expect(run.code).toBe(0);
    const results = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(results).toHaveLength(lines.length);
    fixtures.forEach((f, i) => expect(results[i]).toEqual({ ok: true, scheme: f.scheme, needsRehash: true }));
    expect(results[6]).toMatchObject({ ok: false, error: { code: 'ERR_JSONL_INVALID' } });
    expect(results[7]).toMatchObject({ ok: false, error: { code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' } });
    expect(results[8]).toMatchObject({ ok: false, error: { code: 'ERR_JSONL_INVALID' } });
    expect(results[9]).toEqual({ ok: false, scheme: fixtures[0]!.scheme, needsRehash: false });
    for (const f of fixtures) expect(run.stdout + run.stderr).not.toContain(f.password);
    expect(run.stdout + run.stderr).not.toContain('secret-1');
  });

  it('refuses passwords given as arguments', async () => {
    const run = await passlane(['hash', PASSWORD], '');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/stdin/);
    expect(run.stdout).toBe('');
    const check = await passlane(['check-password', 'iloveyou1'], '');
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(/stdin/);
  });

  it('check-password: the verdict on a password from stdin, as register would give it, never echoing it', async () => {
    const accepted = await passlane(['check-password'], `${PASSWORD}\n`);
    expect([accepted.code, JSON.parse(accepted.stdout)]).toEqual([0, { ok: true, breachCheck: 'off' }]);
    const cases = [
      [['check-password'], 'iloveyou1', 'common'],
      [['check-password'], 'ＩＬＯＶＥＹＯＵ１', 'common'],
      [['check-password'], 'k7#q', 'too_short'],
      [['check-password', '--email', 'grace.hopper@example.com'], 'Grace.Hopper rules 1906', 'context'],
    ] as const;
    for (const [args, password, reason] of cases) {
      const run = await passlane([...args], password);
      expect(run.code, password).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({ ok: false, reason, message: expect.any(String) });
      expect(run.stdout + run.stderr).not.toContain(password);
    }
    // The service's settings apply: a 15-character minimum.
    const strict = await runPasslane(['check-password'], { stdin: 'fourteen chars', env: { PASSLANE_PASSWORD_MIN_LENGTH: '15' } });
    expect(JSON.parse(strict.stdout)).toMatchObject({ ok: false, reason: 'too_short' });
    const badEmail = await passlane(['check-password', '--email', 'nope'], PASSWORD);
    expect(badEmail.code).toBe(2);
  });
});

describe('passlane CLI input bounds', () => {
  it('refuses a runaway stdin instead of buffering it', async () => {
    const run = await passlane(['hash'], 'x'.repeat(2 * 1024 * 1024));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/ERR_PASSWORD_TOO_LONG/);
    expect(run.stdout).toBe('');
  });
});

describe('verifyJsonLines', () => {
  it('reports an unexpected failure on its own line and goes on', async () => {
    const { verifyJsonLines } = await import('../packages/server/src/cli/verify-jsonl.js');
    const { createPasswordHasher } = await import('../packages/passlane/src/index.js');
    const real = createPasswordHasher({ pepper: false });
    const stored = await real.hash(PASSWORD);
    const flaky = { ...real, verify: async (hash: string, password: string) => (hash === 'boom' ? Promise.reject(new TypeError('bug')) : real.verify(hash, password)) };
    async function* lines() {
      yield JSON.stringify({ hash: 'boom', password: PASSWORD });
      yield JSON.stringify({ hash: stored, password: PASSWORD });
    }
    const out: unknown[] = [];
    for await (const line of verifyJsonLines(flaky, lines())) out.push(JSON.parse(line));
    expect(out).toEqual([
      { ok: false, scheme: null, needsRehash: false, error: { code: 'ERR_VERIFY_FAILED', message: 'verification failed' } },
      { ok: true, scheme: 'argon2id', needsRehash: false },
    ]);
  });
});
