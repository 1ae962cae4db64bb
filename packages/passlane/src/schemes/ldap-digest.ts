import { md5, sha1 } from '@noble/hashes/legacy.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import type { CHash } from '@noble/hashes/utils.js';
import { decodeBase64Padded, encodeBase64Padded, utf8 } from '../encoding.js';
import { MalformedHashError } from '../errors.js';
import { NEVER_MATCHES } from './crypt-common.js';
import { decodeOrMalformed } from './field-checks.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * RFC 2307 userPassword digests as OpenLDAP writes and checks them: `{SHA}`, `{SSHA}`, `{MD5}`,
 * `{SMD5}` (liblutil `libraries/liblutil/passwd.c`: chk_sha1, chk_ssha1, chk_md5, chk_smd5) and
 * the pw-sha2 module's `{SHA256}`, `{SSHA256}`, `{SHA384}`, `{SSHA384}`, `{SHA512}`, `{SSHA512}`
 * (`contrib/slapd-modules/passwd/sha2/slapd-sha2.c`).
 *
 *   {SHA}base64(SHA1(password))               {SSHA}base64(SHA1(password || salt) || salt)
 *
 * Padded standard base64, as slappasswd writes it. The salt is what follows the digest: any length
 * from 1 byte (slappasswd writes 4, pw-sha2 8; other directories more), bounded at 64 here.
 * OpenLDAP matches the scheme name case-insensitively (strncasecmp) and refuses an empty password
 * (lutil_passwd), so `{ssha}` is read and "" never verifies.
 */
interface Algorithm {
  scheme: string;
  hash: CHash;
  salted: boolean;
}

const ALGORITHMS: Record<string, Algorithm> = {};
for (const [name, hash] of [
  ['SHA', sha1],
  ['SHA256', sha256],
  ['SHA384', sha384],
  ['SHA512', sha512],
  ['MD5', md5],
] as const) {
  ALGORITHMS[name] = { scheme: `ldap_${name.toLowerCase()}`, hash, salted: false };
  ALGORITHMS[`S${name}`] = { scheme: `ldap_s${name.toLowerCase()}`, hash, salted: true };
}

export const LDAP_MAX_SALT_BYTES = 64;
const PREFIX = /^\{([A-Za-z0-9]+)\}/;

/** Spring Security's StandardPasswordEncoder: lower-case `{sha256}` + hex(salt(8) || digest(32)); another scheme's. */
const SPRING_SHA256 = /^\{sha256\}[0-9a-f]{80}$/;

function nameOf(stored: string): string | undefined {
  const name = PREFIX.exec(stored)?.[1]?.toUpperCase();
  return name !== undefined && name in ALGORITHMS ? name : undefined;
}

function parseLdapDigest(stored: string): ParsedHash {
  const name = nameOf(stored)!;
  const { scheme, hash, salted } = ALGORITHMS[name]!;
  const payload = stored.slice(name.length + 2);
  const decoded = decodeOrMalformed(decodeBase64Padded, payload, `${scheme} value is not padded base64`);
  const size = hash.outputLen;
  const saltLength = decoded.length - size;
  if (!salted && saltLength !== 0) throw new MalformedHashError(`${scheme} value must be a ${size}-byte digest`);
  if (salted && (saltLength < 1 || saltLength > LDAP_MAX_SALT_BYTES)) {
    throw new MalformedHashError(`${scheme} value must be a ${size}-byte digest and a 1..${LDAP_MAX_SALT_BYTES}-byte salt`);
  }
  const digest = decoded.slice(0, size);
  const salt = decoded.slice(size);
  // The digest is not a field of its own: wrapping zeroes its bytes inside the payload and keeps the salt.
  const zeroed = new Uint8Array(decoded.length);
  zeroed.set(salt, size);
  return {
    scheme,
    memoryKiB: 1,
    fastDigest: true,
    digest,
    digestText: payload,
    zeroDigestText: encodeBase64Padded(zeroed),
    async computeDigest(password) {
      if (password === '') return NEVER_MATCHES;
      return hash.create().update(utf8(password)).update(salt).digest();
    },
  };
}

export const ldapDigestScheme: HashScheme = {
  // Names outside the table are other schemes': `{CRYPT}` (ldap-crypt.ts), `{ARGON2}` (passlane's own).
  matches: (stored) => nameOf(stored) !== undefined && !SPRING_SHA256.test(stored),
  parse: parseLdapDigest,
};
