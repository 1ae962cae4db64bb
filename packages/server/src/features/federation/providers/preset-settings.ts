/**
 * What the presets (Google, Microsoft, Apple) add to an OpenID Connect provider's settings
 * (settings.ts): the issuer and response mode are filled in by src/config; these are the parts
 * their clients (this folder) need beyond the generic one.
 */

export const GOOGLE_ISSUER = 'https://accounts.google.com';
/** Microsoft Entra ID's v2.0 endpoints; `<this>/<tenant>/v2.0` is the issuer discovery is fetched from. */
export const MICROSOFT_LOGIN = 'https://login.microsoftonline.com';
export const APPLE_ISSUER = 'https://appleid.apple.com';

export interface GooglePreset {
  kind: 'google';
}

export interface MicrosoftPreset {
  kind: 'microsoft';
  /**
   * Tenant ids (GUIDs, lower-case) whose users may sign in; empty: any tenant the issuer serves
   * (`common`: work, school and personal accounts; `organizations`: work and school).
   */
  allowedTenants: readonly string[];
}

export interface ApplePreset {
  kind: 'apple';
  /** The Apple Developer team id: the client secret's `iss`. */
  teamId: string;
  /** The id of the Sign in with Apple key: the client secret's `kid`. */
  keyId: string;
  /** The key's `.p8` file (PKCS #8 PEM, P-256): a secret (PASSLANE_OAUTH_<NAME>_PRIVATE_KEY). */
  privateKey: string;
}

export type ProviderPreset = GooglePreset | MicrosoftPreset | ApplePreset;
