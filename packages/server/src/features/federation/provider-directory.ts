import { gitHubProvider } from './github-client.js';
import { oidcProvider } from './oidc-client.js';
import type { FederationProvider } from './provider.js';
import { presetTuning } from './providers/preset-tuning.js';
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

function buildProvider(settings: FederationProviderSettings, redirectUri: string): FederationProvider {
  switch (settings.kind) {
    case 'oidc':
      return oidcProvider(settings, redirectUri, presetTuning(settings));
    case 'github':
      return gitHubProvider(settings, redirectUri);
  }
}

/** The `redirect_uri` registered with the provider. */
export function callbackUrl(publicUrl: string, provider: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/oauth/${provider}/callback`;
}
