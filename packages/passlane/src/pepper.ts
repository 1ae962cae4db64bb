import { decodeBase64NoPad, decodeBase64Padded, encodeBase64NoPad, utf8 } from './encoding.js';
import { InvalidOptionsError, MalformedHashError, PepperKeyError } from './errors.js';

/**
 * Pepper: a server-side secret held apart from the database (NIST SP 800-63B). Instead of
 * mixing the key into argon2, the argon2 tag is sealed with AES-256-GCM under a key id:
 *
 *   $pepper$v=1,k=<keyId>$argon2id$v=19$m=..,t=..,p=..$<salt>$<base64(iv | ciphertext | gcm tag)>
 *
 * So a stolen table alone can't be cracked offline, rotating keys needs no password (an offline
 * job opens under the old key and seals under the new one), and the argon2 parameters stay
 * readable for needsRehash. The AAD binds key id, parameters and salt, so a sealed tag can't be
 * moved onto another record's parameters.
 */
export interface PepperOptions {
  /** Id of the key new hashes are sealed with. */
  currentKeyId: string;
  /** Every key still in use, raw 32-byte AES keys (or standard base64 of them), by id. */
  keys: Record<string, Uint8Array<ArrayBuffer> | string>;
}

export interface Pepper {
  readonly currentKeyId: string;
  seal(phc: string): Promise<string>;
  open(stored: string): Promise<string>;
  /** Re-seals under the current key without the password. Plain PHC values are sealed. */
  rotate(stored: string): Promise<string>;
}

export const PEPPER_PREFIX = '$pepper$v=1,k=';
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const IV_BYTES = 12;
const GCM_TAG_BYTES = 16;

export interface PepperEnvelope {
  keyId: string;
  /** The argon2 PHC string up to and including the salt, i.e. without its tag. */
  phcHead: string;
  sealedTag: Uint8Array<ArrayBuffer>;
}

export function isPeppered(stored: string): boolean {
  return stored.startsWith(PEPPER_PREFIX);
}

/** Splits an envelope without decrypting (cheap and synchronous, for needsRehash). */
export function parsePepperEnvelope(stored: string): PepperEnvelope {
  const afterPrefix = stored.slice(PEPPER_PREFIX.length);
  const headStart = afterPrefix.indexOf('$');
  const tagStart = afterPrefix.lastIndexOf('$');
  const keyId = afterPrefix.slice(0, headStart);
  if (headStart < 0 || tagStart <= headStart || !KEY_ID.test(keyId)) {
    throw new MalformedHashError('peppered hash must be $pepper$v=1,k=<keyId>$<argon2 PHC>');
  }
  let sealedTag: Uint8Array<ArrayBuffer>;
  try {
    sealedTag = decodeBase64NoPad(afterPrefix.slice(tagStart + 1));
  } catch (cause) {
    throw new MalformedHashError('peppered tag is not unpadded base64', { cause });
  }
  if (sealedTag.length < IV_BYTES + GCM_TAG_BYTES + 4) throw new MalformedHashError('peppered tag is too short');
  return { keyId, phcHead: afterPrefix.slice(headStart, tagStart), sealedTag };
}

/** The PHC string with a zero tag of the right length: enough to read parameters without the key. */
export function placeholderPhc(envelope: PepperEnvelope): string {
  const tagLength = envelope.sealedTag.length - IV_BYTES - GCM_TAG_BYTES;
  return `${envelope.phcHead}$${encodeBase64NoPad(new Uint8Array(tagLength))}`;
}

function rawKey(id: string, key: Uint8Array<ArrayBuffer> | string): Uint8Array<ArrayBuffer> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = typeof key === 'string' ? decodeBase64Padded(key) : key;
  } catch (cause) {
    throw new InvalidOptionsError(`pepper key ${id} is not standard base64`, { cause });
  }
  if (bytes.length !== 32) throw new InvalidOptionsError(`pepper key ${id} must be 32 bytes (AES-256)`);
  return bytes;
}

export function createPepper(options: PepperOptions): Pepper {
  const entries = Object.entries(options.keys);
  for (const [id] of entries) {
    if (!KEY_ID.test(id)) throw new InvalidOptionsError(`pepper key id ${JSON.stringify(id)} must match ${KEY_ID}`);
  }
  // Own keys only: `in` would accept 'toString' or 'constructor' and fail at the first hash instead.
  if (!Object.hasOwn(options.keys, options.currentKeyId)) throw new InvalidOptionsError('pepper currentKeyId is not among the keys');
  // Validate synchronously so misconfiguration fails at start-up; import lazily (Web Crypto is async).
  const raw = new Map(entries.map(([id, key]) => [id, rawKey(id, key)]));
  const imported = new Map<string, Promise<CryptoKey>>();
  const keyFor = (id: string): Promise<CryptoKey> => {
    const bytes = raw.get(id);
    if (!bytes) return Promise.reject(new PepperKeyError(`pepper key ${id} is not configured`));
    let key = imported.get(id);
    if (!key) {
      key = crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['encrypt', 'decrypt']);
      imported.set(id, key);
    }
    return key;
  };
  const aad = (keyId: string, phcHead: string) => utf8(`${PEPPER_PREFIX}${keyId}${phcHead}`);

  async function seal(phc: string): Promise<string> {
    const tagStart = phc.lastIndexOf('$');
    const phcHead = phc.slice(0, tagStart);
    const tag = decodeBase64NoPad(phc.slice(tagStart + 1));
    const keyId = options.currentKeyId;
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const ciphertext = new Uint8Array(
      await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad(keyId, phcHead) }, await keyFor(keyId), tag),
    );
    const sealed = new Uint8Array(IV_BYTES + ciphertext.length);
    sealed.set(iv);
    sealed.set(ciphertext, IV_BYTES);
    return `${PEPPER_PREFIX}${keyId}${phcHead}$${encodeBase64NoPad(sealed)}`;
  }

  async function open(stored: string): Promise<string> {
    const { keyId, phcHead, sealedTag } = parsePepperEnvelope(stored);
    const key = await keyFor(keyId);
    let tag: ArrayBuffer;
    try {
      tag = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: sealedTag.subarray(0, IV_BYTES), additionalData: aad(keyId, phcHead) },
        key,
        sealedTag.subarray(IV_BYTES),
      );
    } catch (cause) {
      // Wrong key material or a tampered record: not a wrong password, so not a plain `false`.
      throw new PepperKeyError(`peppered hash does not authenticate under key ${keyId}`, { cause });
    }
    return `${phcHead}$${encodeBase64NoPad(new Uint8Array(tag))}`;
  }

  return {
    currentKeyId: options.currentKeyId,
    seal,
    open,
    async rotate(stored) {
      return seal(isPeppered(stored) ? await open(stored) : stored);
    },
  };
}
