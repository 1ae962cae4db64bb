import type { WebAuthnConfig } from '../features/passkeys/settings.js';
import { ConfigError } from './config-error.js';
import { httpsOrLoopbackUrl, text, type Env } from './env.js';
import { readServiceName } from './mail-config.js';

/** A DNS name in lower case: labels of letters, digits and inner hyphens. */
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * Passkeys (features/passkeys): PASSLANE_WEBAUTHN_RP_ID (a registrable domain; never an IP,
 * which WebAuthn forbids as an RP ID), PASSLANE_WEBAUTHN_ORIGINS (the exact origins browsers
 * answer from: https, or http on a loopback host; each on the RP ID or a subdomain of it;
 * `https://<rp id>` by default) and PASSLANE_WEBAUTHN_RP_NAME (the service name by default).
 * Undefined when no RP ID is set: passkeys are off.
 */
export function readWebAuthnConfig(env: Env): WebAuthnConfig | undefined {
  const rpId = text(env, 'PASSLANE_WEBAUTHN_RP_ID');
  const list = text(env, 'PASSLANE_WEBAUTHN_ORIGINS');
  if (rpId === undefined) {
    if (list !== undefined) throw new ConfigError('PASSLANE_WEBAUTHN_ORIGINS', 'is set without PASSLANE_WEBAUTHN_RP_ID: set both, or neither (passkeys off)');
    return undefined;
  }
  if (!DOMAIN.test(rpId) || /^[0-9.]+$/.test(rpId)) {
    throw new ConfigError('PASSLANE_WEBAUTHN_RP_ID', `must be a domain name in lower case, such as example.com or localhost, without scheme or port; never an IP address (got ${JSON.stringify(rpId)})`);
  }
  const origins = (list ?? `https://${rpId}`).split(',').map((origin) => readOrigin(origin.trim(), rpId));
  const rpName = text(env, 'PASSLANE_WEBAUTHN_RP_NAME') ?? readServiceName(env);
  if (rpName.length > 100 || /\p{Cc}/u.test(rpName)) throw new ConfigError('PASSLANE_WEBAUTHN_RP_NAME', 'must be one line of at most 100 characters');
  return { rpId, origins: [...new Set(origins)], rpName };
}

/** One origin as browsers write it in clientDataJSON: scheme, host and port, nothing else. */
function readOrigin(value: string, rpId: string): string {
  const fail = (why: string) => new ConfigError('PASSLANE_WEBAUTHN_ORIGINS', why);
  const url = httpsOrLoopbackUrl(value, fail, {
    notUrl: `has ${JSON.stringify(value)}, which is not an origin such as https://example.com`,
    notHttps: `has ${JSON.stringify(value)}: origins must be https (http only on localhost, 127.0.0.1 or [::1])`,
  });
  if (url.origin !== value) throw fail(`has ${JSON.stringify(value)}: write the origin alone, as ${url.origin} (no path, query or trailing slash)`);
  if (url.hostname !== rpId && !url.hostname.endsWith(`.${rpId}`)) {
    throw fail(`has ${JSON.stringify(value)}, whose host is neither the RP ID ${JSON.stringify(rpId)} nor a subdomain of it (an IP cannot be either: use localhost)`);
  }
  return url.origin;
}
