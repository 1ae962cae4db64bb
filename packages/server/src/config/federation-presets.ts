import * as v from 'valibot';
import { APPLE_ISSUER, GOOGLE_ISSUER, MICROSOFT_LOGIN, type ProviderPreset } from '../features/federation/providers/preset-settings.js';
import { text, type Env } from './env.js';

const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Apple's team and key ids: ten upper-case letters and digits. */
const APPLE_ID = /^[A-Z0-9]{10}$/;

const Google = v.looseObject({ kind: v.literal('google') });
const Microsoft = v.looseObject({
  kind: v.literal('microsoft'),
  tenant: v.optional(v.union([v.picklist(['common', 'organizations', 'consumers']), v.pipe(v.string(), v.toLowerCase(), v.regex(TENANT_ID))])),
  allowedTenants: v.optional(v.array(v.pipe(v.string(), v.toLowerCase(), v.regex(TENANT_ID)))),
});
const Apple = v.looseObject({ kind: v.literal('apple'), teamId: v.pipe(v.string(), v.regex(APPLE_ID)), keyId: v.pipe(v.string(), v.regex(APPLE_ID)) });

/**
 * A preset of PASSLANE_OAUTH_PROVIDERS (`"kind": "google" | "microsoft" | "apple"`), as the
 * generic OpenID Connect provider it is (the object federation-config.ts then reads, with the
 * issuer and response mode filled in) and the preset's own part; undefined for other kinds.
 *   - google: `issuer` https://accounts.google.com.
 *   - microsoft: `tenant` (`common` by default, `organizations`, `consumers` or a tenant id) and
 *     `allowedTenants` (tenant ids; absent: any tenant the endpoint serves).
 *   - apple: `teamId`, `keyId`, and the key's `.p8` file in PASSLANE_OAUTH_<NAME>_PRIVATE_KEY (a
 *     secret); `form_post`; scopes `openid email` by default; no client secret (it is made).
 * Errors name the field, never a value (a secret may be one).
 */
export function expandPreset(env: Env, name: string, settings: unknown, fail: (why: string) => Error): { oidc: Record<string, unknown>; preset: ProviderPreset } | undefined {
  const kind = (settings as { kind?: unknown } | null)?.kind;
  const check = <S extends v.GenericSchema>(schema: S): v.InferOutput<S> => {
    const parsed = v.safeParse(schema, settings);
    if (parsed.success) return parsed.output;
    const path = parsed.issues[0].path?.map((item) => String(item.key)).join('.') ?? 'kind';
    throw fail(`has a bad ${path}: see config/README.md for the fields`);
  };
  const own = (rest: Record<string, unknown>) => {
    // The preset decides these: a deployment that needs others writes `"kind": "oidc"`.
    for (const field of ['issuer', 'responseMode']) if (field in rest) throw fail(`has a ${field}, which its kind ${String(kind)} sets`);
    return rest;
  };
  switch (kind) {
    case 'google': {
      const { kind: _kind, ...rest } = check(Google);
      return { oidc: { ...own(rest), kind: 'oidc', issuer: GOOGLE_ISSUER }, preset: { kind: 'google' } };
    }
    case 'microsoft': {
      const { kind: _kind, tenant, allowedTenants, ...rest } = check(Microsoft);
      if (allowedTenants !== undefined && tenant !== undefined && TENANT_ID.test(tenant)) throw fail('has allowedTenants with a single tenant: the tenant alone is allowed already');
      return { oidc: { ...own(rest), kind: 'oidc', issuer: `${MICROSOFT_LOGIN}/${tenant ?? 'common'}/v2.0` }, preset: { kind: 'microsoft', allowedTenants: allowedTenants ?? [] } };
    }
    case 'apple': {
      const { kind: _kind, teamId, keyId, ...rest } = check(Apple);
      const variable = `PASSLANE_OAUTH_${name.toUpperCase().replaceAll('-', '_')}_PRIVATE_KEY`;
      if ('clientSecret' in rest || text(env, `PASSLANE_OAUTH_${name.toUpperCase().replaceAll('-', '_')}_CLIENT_SECRET`) !== undefined) {
        throw fail('has a client secret: Apple\'s is made from its key (teamId, keyId and the .p8 file)');
      }
      const privateKey = text(env, variable);
      if (privateKey === undefined || !privateKey.includes('-----BEGIN PRIVATE KEY-----')) throw fail(`needs its key's .p8 file (PEM) in ${variable}`);
      return {
        oidc: { scopes: ['openid', 'email'], ...own(rest), kind: 'oidc', issuer: APPLE_ISSUER, responseMode: 'form_post' },
        preset: { kind: 'apple', teamId, keyId, privateKey },
      };
    }
    default:
      return undefined;
  }
}
