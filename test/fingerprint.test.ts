/**
 * Keyed email fingerprints: what logs and counter keys carry instead of an email must not be
 * matchable against a list of emails without the server's key.
 */
import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { createEmailFingerprint } from '../packages/server/src/accounts/fingerprint.js';
import { buildFingerprint, LOCAL_FINGERPRINT_KEY_FILE } from '../packages/server/src/wiring/build-dependencies.js';

const EMAIL = 'ada@example.com';
const key = (fill: number) => new Uint8Array(32).fill(fill);
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'passlane-fingerprint-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('email fingerprints', () => {
  it('are an HMAC under the server key: stable for one key, unrelated across keys, not a plain hash', async () => {
    const [one, same, other] = [createEmailFingerprint(key(1)), createEmailFingerprint(key(1)), createEmailFingerprint(key(2))];
    const fingerprint = one(EMAIL);
    // HMAC-SHA-256's first 8 bytes, as it always was: the fingerprint keys stored counters and sessions.
    expect(fingerprint).toBe(createHmac('sha256', key(1)).update(EMAIL).digest('hex').slice(0, 16));
    expect(one('grâce@例え.jp')).toBe(createHmac('sha256', key(1)).update('grâce@例え.jp').digest('hex').slice(0, 16));
    expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(same(EMAIL)).toBe(fingerprint);
    expect(other(EMAIL)).not.toBe(fingerprint);
    expect(one('grace@example.com')).not.toBe(fingerprint);
    // Someone with the email list and the logs cannot recompute it without the key.
    expect(fingerprint).not.toBe(createHash('sha256').update(EMAIL).digest('hex').slice(0, 16));
  });

  it('reads PASSLANE_FINGERPRINT_KEY as base64 of at least 32 bytes, naming the variable and never the value', () => {
    expect(readConfig({ PASSLANE_FINGERPRINT_KEY: base64(key(7)) }).fingerprint.key).toEqual(key(7));
    for (const bad of ['not base64 at all!', base64(new Uint8Array(16))]) {
      const error = (() => {
        try {
          readConfig({ PASSLANE_FINGERPRINT_KEY: bad });
        } catch (caught) {
          return caught as ConfigError;
        }
        return expect.fail('expected a ConfigError');
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.variable).toBe('PASSLANE_FINGERPRINT_KEY');
      expect(error.message).not.toContain(bad);
    }
  });

  it('generates a key into the data directory on a developer machine, once, readable by the owner only', async () => {
    const config = readConfig({ PASSLANE_DATA_DIR: dataDir });
    const first = await buildFingerprint(config);
    const again = await buildFingerprint(config);
    expect(again(EMAIL)).toBe(first(EMAIL));
    const file = join(dataDir, LOCAL_FINGERPRINT_KEY_FILE);
    expect((await stat(file)).mode & 0o077).toBe(0);
    const stored = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
    expect(first(EMAIL)).toBe(createEmailFingerprint(new Uint8Array(stored))(EMAIL));
  });

  it('refuses to generate one on Lambda, where each container would get its own', async () => {
    const config = readConfig({ PASSLANE_DATA_DIR: join(dataDir, 'never'), AWS_LAMBDA_FUNCTION_NAME: 'passlane-login' });
    await expect(buildFingerprint(config)).rejects.toMatchObject({ name: 'ConfigError', variable: 'PASSLANE_FINGERPRINT_KEY' });
    await expect(stat(join(dataDir, 'never'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
