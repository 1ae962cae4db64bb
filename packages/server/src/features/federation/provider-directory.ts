import type { AuthorizationChecks, FederationProvider, ProvenIdentity } from './provider.js';
import type { FederationConfig, FederationProviderSettings } from './settings.js';

/** The configured providers by name, each built once per container (its discovery and keys are cached there). */
export interface ProviderDirectory {
  get(name: string): FederationProvider | undefined;
}

/**
 * One client per provider kind. Presets (Google, Apple, Microsoft) are OIDC settings with their
 * issuer filled in; what one needs beyond that (Apple's client secret made from its key,
 * Microsoft's issuer per tenant) goes into its settings or its own client file, picked here.
 */
export function createProviderDirectory(config: FederationConfig): ProviderDirectory {
  const byName = new Map(config.providers.map((settings) => [settings.name, settings] as const));
  const built = new Map<string, FederationProvider>();
  return {
    get(name) {
      const settings = byName.get(name);
      if (settings === undefined) return undefined;
      let provider = built.get(name);
      if (provider === undefined) {
        provider = buildProvider(settings, callbackUrl(config.publicUrl, name));
        built.set(name, provider);
      }
      return provider;
    },
  };
}

/**
 * The provider's client, loaded at its first use: every function builds the wiring, and only the
 * sign-in's routes need oauth4webapi (a cold start elsewhere does not parse it).
 */
function buildProvider(settings: FederationProviderSettings, redirectUri: string): FederationProvider {
  let client: Promise<FederationProvider> | undefined;
  const loaded = () =>
    (client ??= (async () => {
      switch (settings.kind) {
        case 'oidc':
          // A preset's tuning (providers/) loads with the client: Apple's imports oauth4webapi too.
          return (await import('./oidc-client.js')).oidcProvider(settings, redirectUri, (await import('./providers/preset-tuning.js')).presetTuning(settings));
        case 'github':
          return (await import('./github-client.js')).gitHubProvider(settings, redirectUri);
      }
    })());
  return {
    settings,
    redirectUri,
    formPost: settings.kind === 'oidc' && settings.responseMode === 'form_post',
    authorizationUrl: async (checks) => (await loaded()).authorizationUrl(checks),
    finish: async (parameters: URLSearchParams, checks: AuthorizationChecks, now: Date): Promise<ProvenIdentity> => (await loaded()).finish(parameters, checks, now),
  };
}

/** The `redirect_uri` registered with the provider. */
export function callbackUrl(publicUrl: string, provider: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/oauth/${provider}/callback`;
}
