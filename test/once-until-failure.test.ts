import { describe, expect, it } from 'vitest';
import { onceUntilFailure } from '../src/shared/once-until-failure.js';

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
