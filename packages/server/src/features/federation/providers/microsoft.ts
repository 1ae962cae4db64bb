import type { JWTPayload } from 'jose';
import type { OidcTuning } from '../oidc-client.js';
import { ProviderRefusedError } from '../provider.js';
import type { MicrosoftPreset } from './preset-settings.js';

const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The tenant of personal Microsoft accounts, whose issuer `/consumers/` names. */
export const CONSUMERS_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';
const TEMPLATE = '{tenantid}';

/**
 * Microsoft Entra ID. The multi-tenant endpoints (`/common/v2.0`, `/organizations/v2.0`) serve
 * a discovery document whose issuer is a template, `.../{tenantid}/v2.0`, and issue ID tokens
 * whose `iss` names the user's own tenant. Checking `iss` against the template, or accepting
 * any `iss`, are the two known mistakes; here the template is filled with the token's `tid`
 * (a tenant id, and on the allow-list when one is set), and `iss` must then be exactly that, the
 * signature by Microsoft's keys and the audience ours, as for any provider. A single-tenant
 * issuer (`/<tenant id>/v2.0`) has no template, and its `tid` must still be its own.
 *
 * Emails: Microsoft's `email` claim is whatever the tenant's admin or the user typed, never
 * verified by Microsoft (the "nOAuth" account takeovers), and its ID tokens carry no
 * `email_verified`. Such an email counts as verified here only with the optional claim
 * `xms_edov` (the email's domain is verified by its tenant), which the app registration must
 * ask for; otherwise it never links to an existing account (README.md).
 */
export function microsoftTuning(issuer: string, preset: MicrosoftPreset): OidcTuning {
  const discoveryIssuer = microsoftDiscoveryIssuer(issuer);
  return {
    ...(discoveryIssuer !== issuer && { discoveryIssuer }),
    tokenIssuer: (claims, discovered) => {
      const tenant = typeof claims.tid === 'string' ? claims.tid.toLowerCase() : undefined;
      if (tenant === undefined || !TENANT_ID.test(tenant)) throw new ProviderRefusedError('id_token');
      if (preset.allowedTenants.length > 0 && !preset.allowedTenants.includes(tenant)) throw new ProviderRefusedError('id_token');
      // A single-tenant issuer names its tenant: a token of another one is refused by `iss` next.
      return discovered.includes(TEMPLATE) ? discovered.replace(TEMPLATE, tenant) : discovered;
    },
    emailVerified: (claims: JWTPayload) => claims.xms_edov === true || claims.xms_edov === 'true' || claims.xms_edov === '1',
  };
}

/** The issuer the discovery document of `<login>/<tenant>/v2.0` names: the template for the multi-tenant ones. */
export function microsoftDiscoveryIssuer(issuer: string): string {
  const match = /^(.*)\/(common|organizations|consumers)\/v2\.0\/?$/.exec(issuer);
  if (match === null) return issuer;
  return `${match[1]}/${match[2] === 'consumers' ? CONSUMERS_TENANT : TEMPLATE}/v2.0`;
}
