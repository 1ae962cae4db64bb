import type { HashScheme } from './types.js';

/** Formats from Unix and LDAP directories and PHP apps: crypt(3), RFC 2307 digests, phpass, Drupal. */
export const UNIX_SCHEMES: readonly HashScheme[] = [];
