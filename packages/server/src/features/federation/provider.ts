import type { FederationProviderSettings } from './settings.js';

/** What a provider proved at its callback: who the user is there, and what it says of the email. */
export interface ProvenIdentity {
  provider: string;
  /** The provider's stable id of the user (`sub`, GitHub's numeric id). */
  subject: string;
  /** As the provider gave it (the caller puts it in canonical form); absent when it gave none. */
  email?: string;
  /** The provider says it verified the email: only then does it count here (README.md). */
  emailVerified: boolean;
  /** The provider's own `amr` holds `mfa` and the deployment trusts it (settings `trustMfa`). */
  providerMfa: boolean;
}

/** What a sign-in keeps between the start and the callback, to check the provider's answer against. */
export interface AuthorizationChecks {
  state: string;
  /** OpenID Connect only. */
  nonce?: string;
  codeVerifier: string;
}

/**
 * One configured provider: the authorization request to send the browser to, and the callback's
 * answer turned into a proven identity (the code exchanged, the ID token or the user API checked).
 * Each kind is a file: oidc-client.ts (any OpenID Connect issuer), github-client.ts.
 */
export interface FederationProvider {
  settings: FederationProviderSettings;
  /** Registered with the provider: `<public URL>/oauth/<name>/callback`. */
  redirectUri: string;
  /** Whether the callback comes back as a form post (the cookie that binds the browser must then be `SameSite=None`). */
  formPost: boolean;
  authorizationUrl(checks: { state: string; nonce?: string; codeChallenge: string }): Promise<URL>;
  /** The callback's parameters (query or form) against what the start kept; throws ProviderRefusedError. */
  finish(parameters: URLSearchParams, checks: AuthorizationChecks, now: Date): Promise<ProvenIdentity>;
}

/** Why a provider's answer was refused: an audit reason, never shown to the user beyond "refused". */
export type ProviderRefusal = 'provider_error' | 'invalid_response' | 'token_exchange' | 'id_token' | 'id_token_signature' | 'user_api' | 'provider_unavailable';

/** The provider's answer could not be trusted (or the provider was not reachable). */
export class ProviderRefusedError extends Error {
  override readonly name = 'ProviderRefusedError';
  readonly code = 'ERR_PROVIDER_REFUSED';
  constructor(
    readonly reason: ProviderRefusal,
    options?: { cause?: unknown },
  ) {
    super(`the provider's answer was refused: ${reason}`, options);
  }
}
