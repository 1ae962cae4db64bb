import { utf8 } from '../encoding.js';
import { UnsupportedHashError } from '../errors.js';
import { bcryptParsedHash, parseBcrypt } from './bcrypt.js';
import { cryptRefuses, NEVER_MATCHES } from './crypt-common.js';
import { parseMd5Crypt } from './md5-crypt.js';
import { parseShaCrypt } from './sha-crypt.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * OpenLDAP's `{CRYPT}`: the rest of the value is handed to the system's crypt(3) (liblutil
 * `libraries/liblutil/passwd.c`, chk_crypt), which on Debian is libxcrypt. passlane reads the
 * crypt ids it implements: MD5-crypt `$1$`, SHA-crypt `$5$`/`$6$` and bcrypt `$2a$`/`$2b$`/`$2y$`.
 * Traditional DES (`{CRYPT}ab01234567890`, 8 password bytes at most), BSDi `_`, yescrypt `$y$`
 * and the rest are refused as unsupported. The name is matched case-insensitively, as OpenLDAP
 * does. What crypt(3) refuses (cryptRefuses: NUL, 512 bytes or more; chk_crypt checks NUL too)
 * never verifies, nor does the empty password, which lutil_passwd refuses.
 */
const PREFIX = /^\{crypt\}/i;
const PREFIX_LENGTH = '{CRYPT}'.length;

function refusing(parsed: ParsedHash): ParsedHash {
  return {
    ...parsed,
    computeDigest: (password, context) => (password === '' || cryptRefuses(password) ? Promise.resolve(NEVER_MATCHES) : parsed.computeDigest(password, context)),
  };
}

function parseLdapCrypt(stored: string, limits: Parameters<HashScheme['parse']>[1]): ParsedHash {
  const inner = stored.slice(PREFIX_LENGTH);
  if (inner.startsWith('$1$')) return refusing(parseMd5Crypt(inner, 'ldap_crypt_md5'));
  if (inner.startsWith('$5$')) return refusing(parseShaCrypt(inner, limits, 'ldap_crypt_sha256'));
  if (inner.startsWith('$6$')) return refusing(parseShaCrypt(inner, limits, 'ldap_crypt_sha512'));
  if (/^\$2[aby]\$/.test(inner)) return refusing(bcryptParsedHash(parseBcrypt(inner, limits), 'ldap_crypt_bcrypt', utf8, 'password'));
  throw new UnsupportedHashError(inner.startsWith('$') ? 'unsupported crypt(3) id inside {CRYPT}' : 'traditional DES crypt inside {CRYPT} is not supported');
}

export const ldapCryptScheme: HashScheme = {
  matches: (stored) => PREFIX.test(stored),
  parse: parseLdapCrypt,
};
