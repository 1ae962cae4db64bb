import { describe, expect, it } from 'vitest';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';

describe('onceUntilFailure', () => {
  it('builds once and shares the result, but forgets a failure so the next call retries', async () => {
    let builds = 0;
    const get = onceUntilFailure(async () => {
      builds++;
      if (builds === 1) throw new Error('passing fault');
      return builds;
    });
    await expect(get()).rejects.toThrow('passing fault');
    const [a, b] = await Promise.all([get(), get()]);
    expect([a, b, await get()]).toEqual([2, 2, 2]);
    expect(builds).toBe(2);
  });
});

describe('oncePerKeyUntilFailure', () => {
  it('builds once per key and retries a key whose build failed', async () => {
    const builds: string[] = [];
    const get = (await import('../packages/server/src/shared/once-until-failure.js')).oncePerKeyUntilFailure(async (key: { name: string }) => {
      builds.push(key.name);
      if (key.name === 'b' && builds.filter((n) => n === 'b').length === 1) throw new Error('passing fault');
      return key.name.toUpperCase();
    });
    const a = { name: 'a' };
    const b = { name: 'b' };
    expect([await get(a), await get(a)]).toEqual(['A', 'A']);
    await expect(get(b)).rejects.toThrow('passing fault');
    expect(await get(b)).toBe('B');
    expect(builds).toEqual(['a', 'b', 'b']);
  });
});
