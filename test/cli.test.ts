import { readFileSync } from 'node:fs';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { createSecretBox } from '../packages/server/src/features/mfa/secret-box.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { tokenServiceFromConfig } from '../packages/server/src/features/tokens/token-service.js';
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

describe('passlane --version, usage errors and keygen', () => {
  it('prints its version, and names an unknown option without the argument parser\'s advice', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../packages/server/package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const run = await runPasslane([flag]);
      expect([run.code, run.stdout, run.stderr]).toEqual([0, `passlane ${pkg.version}\n`, '']);
    }
    const unknown = await runPasslane(['--frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe('passlane: unknown option --frobnicate');
    expect(unknown.stderr).not.toMatch(/positional argument/);
    const bulk = await runPasslane(['import', '--frobnicate', 'users.jsonl']);
    expect([bulk.code, bulk.stderr.split('\n')[0]]).toEqual([2, 'passlane import: unknown option --frobnicate']);
  });

  it('keygen prints keys the server takes, for .env and .dev.vars, and says in its help that it prints keys', async () => {
    const help = await runPasslane(['keygen', '--help']);
    expect(help.stdout).toMatch(/this command prints keys,\s+that is its job/);

    const run = await runPasslane(['keygen', '--pepper-id', 'k-2026']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const env = Object.fromEntries([...run.stdout.matchAll(/^(PASSLANE_[A-Z_]+)='([^']*)'$/gm)].map((match) => [match[1]!, match[2]!]));
    expect(Object.keys(env).sort()).toEqual(['PASSLANE_FINGERPRINT_KEY', 'PASSLANE_JWT_PRIVATE_KEY', 'PASSLANE_JWT_PUBLIC_KEYS', 'PASSLANE_MFA_KEYS', 'PASSLANE_PEPPER_KEYS']);
    // Every line is a comment or a KEY='value': sh, dotenv and wrangler read them alike.
    expect(run.stdout.trim().split('\n').every((line) => line.startsWith('# ') || /^PASSLANE_[A-Z_]+='[^']*'$/.test(line))).toBe(true);

    // What the server's readers and wiring accept: the signing key is RS256 and its public half is the JWKS given.
    const config = readConfig(env);
    expect(config.hasher.pepper?.currentKeyId).toBe('k-2026');
    expect(config.fingerprint.key).toHaveLength(32);
    // The MFA key seals and opens a TOTP secret, and is not the pepper's.
    expect(config.mfa.keys?.map((key) => key.id)).toEqual(['k-2026']);
    expect(env.PASSLANE_MFA_KEYS).not.toBe(env.PASSLANE_PEPPER_KEYS);
    const box = createSecretBox(config.mfa.keys!);
    expect(await box.open('account', await box.seal('account', new Uint8Array(20).fill(7)))).toEqual(new Uint8Array(20).fill(7));
    const tokens = await tokenServiceFromConfig(config.tokens);
    const { accessToken } = await tokens.issue({ userId: 'u-1' });
    const { payload, protectedHeader } = await jwtVerify(accessToken, createLocalJWKSet(JSON.parse(env.PASSLANE_JWT_PUBLIC_KEYS!)));
    expect([payload.sub, protectedHeader.alg]).toEqual(['u-1', 'RS256']);
    const hasher = createPasswordHasher({ pepper: config.hasher.pepper! });
    const sealed = await hasher.hash(PASSWORD);
    expect(sealed).toMatch(/^\$pepper\$v=1,k=k-2026\$/);
    expect((await hasher.verify(sealed, PASSWORD)).ok).toBe(true);

    // Fresh keys every run.
    const again = await runPasslane(['keygen', '--format', 'dev-vars']);
    expect(again.stdout).toContain('.dev.vars');
    for (const value of Object.values(env)) if (!value.startsWith('{"keys"')) expect(again.stdout).not.toContain(value);
  });

  it('keygen --format ssm writes a script that puts them under /passlane/STAGE/ from files, never on a command line', async () => {
    const run = await runPasslane(['keygen', '--format', 'ssm', '--stage', 'prod']);
    expect(run.code).toBe(0);
    const puts = run.stdout.split('\n').filter((line) => line.startsWith('aws ssm put-parameter'));
    expect(puts).toEqual([
      'aws ssm put-parameter --name /passlane/prod/pepper-keys --type SecureString --value "file://$dir/pepper-keys.txt"',
      'aws ssm put-parameter --name /passlane/prod/jwt-private-key --type SecureString --value "file://$dir/jwt-private-key.json"',
      'aws ssm put-parameter --name /passlane/prod/fingerprint-key --type SecureString --value "file://$dir/fingerprint-key.txt"',
      'aws ssm put-parameter --name /passlane/prod/mfa-keys --type SecureString --value "file://$dir/mfa-keys.txt"',
      'aws ssm put-parameter --name /passlane/prod/jwt-public-keys --type String --value "file://$dir/jwt-public-keys.json"',
    ]);
    expect(run.stdout).toContain('umask 077');
    // The names serverless.yml reads by default.
    const serverless = readFileSync(new URL('../serverless.yml', import.meta.url), 'utf8');
    for (const name of ['pepper-keys', 'jwt-private-key', 'fingerprint-key', 'mfa-keys', 'jwt-public-keys']) expect(serverless).toContain(`/passlane/\${sls:stage}/${name}`);
    expect((await runPasslane(['keygen', '--format', 'yaml'])).code).toBe(2);
  });
});
