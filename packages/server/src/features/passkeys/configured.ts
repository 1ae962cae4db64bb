import { PasskeysNotConfiguredError } from '../../accounts/errors.js';
import type { WebAuthnConfig } from './settings.js';

/** The deployment's relying party, or `passkeys_not_configured` before anything is read. */
export function configuredRelyingParty(deps: { webauthn?: WebAuthnConfig }): WebAuthnConfig {
  if (deps.webauthn === undefined) throw new PasskeysNotConfiguredError();
  return deps.webauthn;
}
