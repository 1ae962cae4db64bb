import { base64url } from 'jose';
import { utf8 } from 'passlane/encoding';
import type { MfaKey } from './settings.js';

/**
 * TOTP secrets at rest: AES-256-GCM (Web Crypto, on every host) under the first key of
 * PASSLANE_MFA_KEYS, as `<key id>.<iv>.<ciphertext>` (base64url), so any key of the list opens
 * what it sealed and a rotation only adds a key in front. The account's fingerprint is the
 * additional data: a sealed secret copied into another account's item does not open there.
 */
export interface SecretBox {
  seal(accountKey: string, secret: Uint8Array): Promise<string>;
  /** The secret; throws MfaKeyError when no key of the list opens it. */
  open(accountKey: string, sealed: string): Promise<Uint8Array<ArrayBuffer>>;
}

export class MfaKeyError extends Error {
  readonly code = 'ERR_MFA_KEY';

  constructor(message: string) {
    super(message);
    this.name = 'MfaKeyError';
  }
}

const IV_BYTES = 12;

export function createSecretBox(keys: readonly MfaKey[]): SecretBox {
  if (keys.length === 0) throw new MfaKeyError('no MFA key');
  const imported = new Map<string, Promise<CryptoKey>>();
  const cryptoKey = (key: MfaKey) => {
    let found = imported.get(key.id);
    if (found === undefined) {
      found = crypto.subtle.importKey('raw', key.key, 'AES-GCM', false, ['encrypt', 'decrypt']);
      imported.set(key.id, found);
    }
    return found;
  };
  const byId = new Map(keys.map((key) => [key.id, key]));
  const additionalData = (accountKey: string) => utf8(`passlane-totp:${accountKey}`);
  return {
    async seal(accountKey, secret) {
      const key = keys[0]!;
      const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
      const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: additionalData(accountKey) }, await cryptoKey(key), new Uint8Array(secret));
      return `${key.id}.${base64url.encode(iv)}.${base64url.encode(new Uint8Array(sealed))}`;
    },
    async open(accountKey, sealed) {
      const [id, iv, data] = sealed.split('.');
      const key = id === undefined ? undefined : byId.get(id);
      if (key === undefined || iv === undefined || data === undefined) throw new MfaKeyError('the TOTP secret is sealed under a key not in PASSLANE_MFA_KEYS');
      try {
        const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: new Uint8Array(base64url.decode(iv)), additionalData: additionalData(accountKey) }, await cryptoKey(key), new Uint8Array(base64url.decode(data)));
        return new Uint8Array(plain);
      } catch {
        throw new MfaKeyError('the TOTP secret does not open under its key');
      }
    },
  };
}

/**
 * A box built at its first use: functions that never seal or open (register, password change)
 * start without PASSLANE_MFA_KEYS; one that does fails at that use, with the setting's name.
 */
export function lazySecretBox(build: () => Promise<SecretBox>): SecretBox {
  let built: Promise<SecretBox> | undefined;
  const box = () => {
    built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
  return {
    seal: async (accountKey, secret) => (await box()).seal(accountKey, secret),
    open: async (accountKey, sealed) => (await box()).open(accountKey, sealed),
  };
}
