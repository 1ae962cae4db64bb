/**
 * Passkeys (README.md here): the relying party this deployment is, and the bounds. Read by
 * config/webauthn-config.ts; absent (`webauthn` undefined) when PASSLANE_WEBAUTHN_RP_ID is unset,
 * and then every passkey route answers `passkeys_not_configured`.
 */

export interface WebAuthnConfig {
  /** The relying-party ID: a registrable domain (never an IP), the origins' host or a parent of it (PASSLANE_WEBAUTHN_RP_ID). */
  rpId: string;
  /** The exact origins a browser may answer from (clientDataJSON's `origin`) (PASSLANE_WEBAUTHN_ORIGINS). */
  origins: readonly string[];
  /** The name authenticators show (PASSLANE_WEBAUTHN_RP_NAME; the service name by default). */
  rpName: string;
}

/** Fixed bounds, written down in SECURITY.md ("Passkeys"). */
export const PASSKEY_LIMITS = {
  /** Passkeys per account: a list a person can manage, and a bounded `mfa#` item and allowCredentials. */
  perAccount: 10,
  /** How long a challenge waits for its answer (and the `timeout` the browser is given). */
  challengeSeconds: 300,
  /** A passkey's name, in characters. */
  nameChars: 64,
} as const;

export const DEFAULT_PASSKEY_NAME = 'Passkey';
