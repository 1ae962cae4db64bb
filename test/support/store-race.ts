import type { MfaStore } from '../../packages/server/src/storage/mfa-store.js';

/**
 * The factors store, with `meanwhile` run once right after the next read returns (before the
 * caller acts on it): a concurrent change slipped in between a use case's read and its write.
 */
export function mfaStoreChangedAfterRead(store: MfaStore, meanwhile: () => Promise<void>): MfaStore {
  let pending: (() => Promise<void>) | undefined = meanwhile;
  return Object.assign(Object.create(store) as MfaStore, {
    read: async (key: string) => {
      const read = await store.read(key);
      const hook = pending;
      pending = undefined;
      await hook?.();
      return read;
    },
  });
}
