import type { OidcTuning } from '../oidc-client.js';
import type { OidcProviderSettings } from '../settings.js';
import { appleTuning } from './apple.js';
import { googleTuning } from './google.js';
import { microsoftTuning } from './microsoft.js';

/** What an OpenID Connect provider's preset changes of the generic client (none without a preset). */
export function presetTuning(settings: OidcProviderSettings): OidcTuning {
  const preset = settings.preset;
  switch (preset?.kind) {
    case undefined:
      return {};
    case 'google':
      return googleTuning();
    case 'microsoft':
      return microsoftTuning(settings.issuer, preset);
    case 'apple':
      return appleTuning(preset, settings.clientId, settings.issuer);
  }
}
