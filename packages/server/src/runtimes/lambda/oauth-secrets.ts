import { text, type Env } from '../../config/env.js';
import { SecretLoadError } from './load-secrets.js';

export const OAUTH_SECRETS = 'PASSLANE_OAUTH_SECRETS';

/**
 * The providers' secrets on Lambda: one SSM SecureString (PASSLANE_OAUTH_SECRETS_PARAMETER,
 * loaded as PASSLANE_OAUTH_SECRETS) holding a JSON object by provider name, each
 * `{ "clientSecret"?: string, "privateKey"?: string }` (Apple's `.p8` key). One parameter for
 * every provider: the template names its parameters before anyone knows which providers a
 * deployment sets (PASSLANE_OAUTH_PROVIDERS is a setting). Spread here into the variables every
 * host reads (PASSLANE_OAUTH_<NAME>_CLIENT_SECRET, PASSLANE_OAUTH_<NAME>_PRIVATE_KEY), which
 * the edge hosts get as bindings. Errors name the provider and field, never a value.
 */
export function spreadOAuthSecrets(env: Env): Env {
  const value = text(env, OAUTH_SECRETS);
  if (value === undefined) return env;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new SecretLoadError(`${OAUTH_SECRETS} is not JSON: an object of providers by name, each { "clientSecret"?, "privateKey"? }`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SecretLoadError(`${OAUTH_SECRETS} must be a JSON object of providers by name`);
  const spread: Record<string, string> = {};
  for (const [name, secrets] of Object.entries(parsed)) {
    if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(name)) throw new SecretLoadError(`${OAUTH_SECRETS} names a provider that is not a provider's name (lower-case letters, digits, -)`);
    if (typeof secrets !== 'object' || secrets === null || Array.isArray(secrets)) throw new SecretLoadError(`${OAUTH_SECRETS}: provider ${name} must be an object { "clientSecret"?, "privateKey"? }`);
    const prefix = `PASSLANE_OAUTH_${name.toUpperCase().replaceAll('-', '_')}_`;
    for (const [field, suffix] of [['clientSecret', 'CLIENT_SECRET'], ['privateKey', 'PRIVATE_KEY']] as const) {
      const secret = (secrets as Record<string, unknown>)[field];
      if (secret === undefined) continue;
      if (typeof secret !== 'string' || secret === '') throw new SecretLoadError(`${OAUTH_SECRETS}: provider ${name}'s ${field} must be a non-empty string`);
      if (text(env, prefix + suffix) !== undefined) throw new SecretLoadError(`set either ${prefix + suffix} or provider ${name}'s ${field} in ${OAUTH_SECRETS}, not both`);
      spread[prefix + suffix] = secret;
    }
    const unknown = Object.keys(secrets).filter((field) => field !== 'clientSecret' && field !== 'privateKey');
    if (unknown.length > 0) throw new SecretLoadError(`${OAUTH_SECRETS}: provider ${name} has fields other than clientSecret and privateKey`);
  }
  return { ...env, ...spread };
}
