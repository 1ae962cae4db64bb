import { aspnetIdentityScheme } from './aspnet-identity.js';
import { springScheme } from './spring.js';
import type { HashScheme } from './types.js';
import { werkzeugScheme } from './werkzeug.js';

/**
 * Formats from application frameworks: Werkzeug, ASP.NET Core Identity, Spring Security. (Django's
 * are in djangoScheme.) None of their prefixes overlap; they run before the Unix and LDAP schemes,
 * so Spring's lower-case `{sha256}` is never read as LDAP's `{SHA256}`.
 */
export const FRAMEWORK_SCHEMES: readonly HashScheme[] = [werkzeugScheme, springScheme, aspnetIdentityScheme];
