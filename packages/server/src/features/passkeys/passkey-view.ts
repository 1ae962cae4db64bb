import type { StoredPasskey } from '../../storage/passkey-store.js';

/** A passkey as its owner sees it (GET /passkeys): never its public key. */
export interface PasskeyView {
  /** The credential id (base64url). */
  id: string;
  name: string;
  /** ISO 8601. */
  createdAt: string;
  lastUsedAt: string | null;
  /** `multiDevice`: a synced passkey (backup eligible); `singleDevice`: bound to its authenticator. */
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
}

export function passkeyView(id: string, passkey: StoredPasskey): PasskeyView {
  return {
    id,
    name: passkey.name,
    createdAt: new Date(passkey.createdAt * 1000).toISOString(),
    lastUsedAt: passkey.lastUsedAt === undefined ? null : new Date(passkey.lastUsedAt * 1000).toISOString(),
    deviceType: passkey.backupEligible ? 'multiDevice' : 'singleDevice',
    backedUp: passkey.backedUp,
  };
}
