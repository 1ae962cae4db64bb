import { drupalScheme } from './drupal.js';
import { ldapCryptScheme } from './ldap-crypt.js';
import { ldapDigestScheme } from './ldap-digest.js';
import { md5CryptScheme } from './md5-crypt.js';
import { phpassScheme } from './phpass.js';
import { shaCryptScheme } from './sha-crypt.js';
import type { HashScheme } from './types.js';

/**
 * Formats from Unix and LDAP directories and PHP apps: crypt(3), RFC 2307 digests, phpass, Drupal.
 * Their prefixes do not overlap one another; they run after the framework schemes, so Spring's
 * lower-case `{sha256}` never reaches the LDAP digests.
 */
export const UNIX_SCHEMES: readonly HashScheme[] = [md5CryptScheme, shaCryptScheme, ldapCryptScheme, ldapDigestScheme, phpassScheme, drupalScheme];
