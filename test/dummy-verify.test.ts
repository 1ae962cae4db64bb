import { describe, expect, it } from 'vitest';
import { hasherWithBackend, recordingBackend } from './support/recording-backend.js';

describe('verifyDummy', () => {
  it('does the same argon2 work as verifying a real account at the current policy, and never matches', async () => {
    const recorder = recordingBackend();
    const hasher = hasherWithBackend(recorder.backend, { argon2: { memoryKiB: 12288, passes: 3 } });
    const stored = await hasher.hash('correct horse battery staple');
    recorder.argon2Calls.length = 0;

    await hasher.verify(stored, 'correct horse battery staple');
    const real = recorder.argon2Calls.splice(0);
    expect(await hasher.verifyDummy('correct horse battery staple')).toEqual({ ok: false, needsRehash: false, scheme: 'argon2id' });
    expect(await hasher.verifyDummy('')).toMatchObject({ ok: false });
    const dummy = recorder.argon2Calls.splice(0);

    expect(real).toHaveLength(1);
    expect(dummy).toEqual([real[0], real[0]]);
    expect(real[0]).toMatchObject({ algorithm: 'argon2id', version: 0x13, memoryKiB: 12288, passes: 3, lanes: 1, tagLength: 32 });
  });
});
