/**
 * The relying party this deployment is, for every WebAuthn ceremony (passkey registration and
 * login, the second factor at POST /login/mfa). Read by config/webauthn-config.ts; absent
 * (`webauthn` undefined) when PASSLANE_WEBAUTHN_RP_ID is unset: passkeys are then off.
 */
export interface WebAuthnConfig {
  /** The relying-party ID: a registrable domain (never an IP), the origins' host or a parent of it (PASSLANE_WEBAUTHN_RP_ID). */
  rpId: string;
  /** The exact origins a browser may answer from (clientDataJSON's `origin`) (PASSLANE_WEBAUTHN_ORIGINS). */
  origins: readonly string[];
  /** The name authenticators show (PASSLANE_WEBAUTHN_RP_NAME; the service name by default). */
  rpName: string;
}

/** How long a challenge waits for its answer (and the `timeout` the browser is given); SECURITY.md ("Passkeys"). */
export const CHALLENGE_SECONDS = 300;
