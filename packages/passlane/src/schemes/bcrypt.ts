import { decodeBcryptBase64, utf8 } from '../encoding.js';
import { MalformedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { parseBoundedInteger } from './parse-integer.js';
import type { HashScheme, ParsedHash, VerifyContext } from './types.js';

export interface BcryptHash {
  /** `$2b$12$` + 22 salt characters */
  setting: string;
  cost: number;
  checksum: string;
}

const BCRYPT_PATTERN = /^\$(2[aby])\$([0-9]{2})\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;

/** `$2a$`, `$2b$` and `$2y$` differ only in bugs of old C implementations that don't affect UTF-8 input. */
export function parseBcrypt(stored: string, limits: StoredHashLimits): BcryptHash {
  const match = BCRYPT_PATTERN.exec(stored);
  if (!match) throw new MalformedHashError('bcrypt hash must be $2a$|$2b$|$2y$, a two-digit cost and 53 characters');
  const [, minor, costText, salt, checksum] = match as unknown as [string, string, string, string, string];
  const cost = parseBoundedInteger(costText.replace(/^0/, ''), 'bcrypt cost', 4, limits.bcryptMaxCost);
  return { setting: `$${minor}$${costText}$${salt}`, cost, checksum };
}

export const BCRYPT_MAX_KEY_BYTES = 72;

/** bcrypt's state is 4 KiB; the limiter still needs a weight. */
const BCRYPT_MEMORY_KIB = 4;

/** A bcrypt-based ParsedHash whose input bytes are derived from the password by `prepare`. */
export function bcryptParsedHash(
  hash: BcryptHash,
  scheme: string,
  prepare: (password: string) => Uint8Array | Promise<Uint8Array>,
  /** How the password reaches bcrypt: as its key (truncated at 72 bytes) or as a digest of it. */
  input: 'password' | 'digest',
): ParsedHash {
  return {
    scheme,
    memoryKiB: BCRYPT_MEMORY_KIB,
    cost: `cost=${hash.cost}`,
    ...(input === 'password' && { inputLimitBytes: BCRYPT_MAX_KEY_BYTES }),
    // The 31 characters carry 23 bytes; compared decoded, like every other format.
    digest: decodeBcryptBase64(hash.checksum),
    digestText: hash.checksum,
    zeroDigestText: '.'.repeat(31),
    async computeDigest(password, { backend }: VerifyContext) {
      return decodeBcryptBase64(await backend.bcryptChecksum(await prepare(password), hash.setting));
    },
  };
}

/** Plain bcrypt (Rails, Laravel, Node apps, htpasswd -B): the UTF-8 password, truncated to 72 bytes by bcrypt. */
export const bcryptScheme: HashScheme = {
  matches: (stored) => /^\$2[aby]\$/.test(stored),
  parse: (stored, limits) => bcryptParsedHash(parseBcrypt(stored, limits), 'bcrypt', utf8, 'password'),
};
