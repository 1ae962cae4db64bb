import * as oauth from 'oauth4webapi';
import type { OidcTuning } from '../oidc-client.js';
import { appleClientSecret } from './apple-client-secret.js';
import type { ApplePreset } from './preset-settings.js';

/**
 * Apple: an OpenID Connect provider (its discovery document, its keys) with these differences:
 * the callback is a form post (`response_mode=form_post`, which Apple requires when `email` or
 * `name` is asked; settings fill it in), the email comes only in the ID token, its
 * `email_verified` may be the string "true" (read so by the generic client), and the client
 * secret is an ES256 JWT made from the team's key, sent in the body (`client_secret_post`, the
 * only method Apple's token endpoint takes). The `user` form field (the name, on the first
 * sign-in only) is not read: nothing here stores names.
 */
export function appleTuning(preset: ApplePreset, clientId: string, issuer: string): OidcTuning {
  const secret = appleClientSecret(preset, clientId, issuer);
  return {
    clientAuth: async (now) => oauth.ClientSecretPost(await secret(now)),
  };
}
