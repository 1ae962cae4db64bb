/**
 * Sign-in with other providers (README.md here): the providers, each as a deployment configures
 * it, and where their callbacks come back to. `src/config/federation-config.ts` reads them from
 * PASSLANE_OAUTH_PROVIDERS.
 */

import type { ProviderPreset } from './providers/preset-settings.js';

/** What every provider has: its name in the routes, the client it knows us as, what we ask of it. */
interface ProviderSettings {
  /** The `:provider` of the routes and the identities' namespace: lower-case letters, digits, `-`. */
  name: string;
  clientId: string;
  /**
   * The client secret, sent to the token endpoint. Absent: a public client (PKCE alone). Presets
   * that make theirs (Apple's ES256 JWT) or read it from SSM fill it in before the provider is built.
   */
  clientSecret?: string;
  scopes: readonly string[];
  /**
   * The app's origins a sign-in may return to (`redirect_to`), exactly as browsers write them:
   * any other is refused before the provider is asked (no open redirect).
   */
  redirectOrigins: readonly string[];
  /**
   * The deployment trusts the provider's own second factor: an ID token whose `amr` holds `mfa`
   * counts as one here too, so an account with a second factor is not asked for it again. Off by
   * default; never for providers without an ID token.
   */
  trustMfa: boolean;
}

/** Any OpenID Connect provider, found by its issuer's discovery document. */
export interface OidcProviderSettings extends ProviderSettings {
  kind: 'oidc';
  /** Google, Microsoft or Apple: what its client (providers/) needs beyond the generic one. */
  preset?: ProviderPreset;
  /** The issuer URL (https; http only on a loopback host, for tests and development). */
  issuer: string;
  /** `form_post` for providers that post the callback (Apple); `query` by default. */
  responseMode: 'query' | 'form_post';
}

/** GitHub's OAuth 2.0 (no ID token): the user and its verified primary email come from its API. */
export interface GitHubProviderSettings extends ProviderSettings {
  kind: 'github';
  /** Configurable so that tests and GitHub Enterprise can point elsewhere; github.com's by default. */
  authorizationUrl: string;
  tokenUrl: string;
  userUrl: string;
  emailsUrl: string;
}

export type FederationProviderSettings = OidcProviderSettings | GitHubProviderSettings;

export interface FederationConfig {
  providers: readonly FederationProviderSettings[];
  /**
   * The API's public URL: each provider's `redirect_uri` is `<this>/oauth/<name>/callback`, as
   * registered with the provider.
   */
  publicUrl: string;
}

export const GITHUB_DEFAULTS = {
  authorizationUrl: 'https://github.com/login/oauth/authorize',
  tokenUrl: 'https://github.com/login/oauth/access_token',
  userUrl: 'https://api.github.com/user',
  emailsUrl: 'https://api.github.com/user/emails',
  scopes: ['read:user', 'user:email'],
} as const;

export const DEFAULT_OIDC_SCOPES: readonly string[] = ['openid', 'email', 'profile'];

/** How long each step of a sign-in lives, in seconds. */
export const FEDERATION_LIMITS = {
  /** From the start to the provider's callback: a user reading the provider's consent page. */
  stateSeconds: 600,
  /** From the callback to the app's redemption: a redirect, then one request. */
  appCodeSeconds: 60,
  /** From the callback to the link after a password login. */
  pendingLinkSeconds: 600,
  /** How recent a login must be to link an identity to it (as for adding a second factor). */
  recentLoginSeconds: 300,
} as const;

/** The `amr` of a federated login (README.md: why). */
export const FEDERATED_AMR = 'fed';
