import { CHALLENGE_SECONDS } from '../../webauthn/relying-party.js';

/**
 * Passkeys (README.md here): the bounds. The relying party (`WebAuthnConfig`) is the WebAuthn
 * module's (src/webauthn), shared with the login's second factor; absent, every passkey route
 * answers `passkeys_not_configured`.
 */
export type { WebAuthnConfig } from '../../webauthn/relying-party.js';

/** Fixed bounds, written down in SECURITY.md ("Passkeys"). */
export const PASSKEY_LIMITS = {
  /** Passkeys per account: a list a person can manage, and a bounded `mfa#` item and allowCredentials. */
  perAccount: 10,
  /** How long a challenge waits for its answer (and the `timeout` the browser is given). */
  challengeSeconds: CHALLENGE_SECONDS,
  /** A passkey's name, in characters. */
  nameChars: 64,
} as const;

export const DEFAULT_PASSKEY_NAME = 'Passkey';
