import * as v from 'valibot';
import { DEFAULT_OIDC_SCOPES, GITHUB_DEFAULTS, type FederationConfig, type FederationProviderSettings } from '../features/federation/settings.js';
import { ConfigError } from './config-error.js';
import { expandPreset } from './federation-presets.js';
import { httpsOrLoopbackUrl, json, text, type Env } from './env.js';

const VARIABLE = 'PASSLANE_OAUTH_PROVIDERS';
const NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** RFC 6749 scope-tokens: printable ASCII but space, `"` and `\`. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

const Common = {
  clientId: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
  clientSecret: v.optional(v.pipe(v.string(), v.minLength(1))),
  scopes: v.optional(v.array(v.pipe(v.string(), v.regex(SCOPE)))),
  redirectOrigins: v.pipe(v.array(v.string()), v.minLength(1)),
  trustMfa: v.optional(v.boolean()),
};
const Provider = v.variant('kind', [
  v.strictObject({ kind: v.literal('oidc'), issuer: v.string(), responseMode: v.optional(v.picklist(['query', 'form_post'])), ...Common }),
  v.strictObject({
    kind: v.literal('github'),
    authorizationUrl: v.optional(v.string()),
    tokenUrl: v.optional(v.string()),
    userUrl: v.optional(v.string()),
    emailsUrl: v.optional(v.string()),
    ...Common,
  }),
]);

/**
 * Sign-in with providers (features/federation): PASSLANE_OAUTH_PROVIDERS, a JSON object of
 * providers by name (the routes' `:provider`), each `{ "kind": "oidc", "issuer", "clientId",
 * "clientSecret"?, "scopes"?, "redirectOrigins", "trustMfa"?, "responseMode"? }` or `{ "kind":
 * "github", "clientId", "clientSecret"?, "redirectOrigins", "scopes"?, and the API's URLs? }`.
 * A client secret may come apart, in PASSLANE_OAUTH_<NAME>_CLIENT_SECRET (name upper-cased, `-`
 * as `_`), which is where a secret store's value goes (SSM on Lambda, a binding on the edge).
 * Callbacks come back to PASSLANE_PUBLIC_URL (else the issuer, when it is a URL). Undefined
 * when no provider is set: the routes answer `provider_not_found`. Secrets are never quoted.
 */
export function readFederationConfig(env: Env, tokens: { publicUrl?: string; issuer: string }): FederationConfig | undefined {
  const value = json(env, VARIABLE);
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(VARIABLE, 'must be a JSON object of providers by name');
  const providers = Object.entries(value).map(([name, settings]) => readProvider(env, name, settings));
  if (providers.length === 0) return undefined;
  const base = tokens.publicUrl ?? (/^https?:\/\//.test(tokens.issuer) ? tokens.issuer : undefined);
  if (base === undefined) throw new ConfigError('PASSLANE_PUBLIC_URL', `must be set when ${VARIABLE} is: the providers' callbacks come back to <PASSLANE_PUBLIC_URL>/oauth/<name>/callback`);
  const publicUrl = httpsOrLoopbackUrl(base, (why) => new ConfigError('PASSLANE_PUBLIC_URL', why), {
    notUrl: 'is not a URL',
    notHttps: 'must be https (http only on localhost, 127.0.0.1 or [::1]) for sign-in with providers',
  });
  return { providers, publicUrl: publicUrl.href.replace(/\/+$/, '') };
}

function readProvider(env: Env, name: string, settings: unknown): FederationProviderSettings {
  const fail = (why: string) => new ConfigError(VARIABLE, `provider ${JSON.stringify(name)} ${why}`);
  if (!NAME.test(name)) throw new ConfigError(VARIABLE, `has a provider named ${JSON.stringify(name.slice(0, 40))}: names are 1 to 32 lower-case letters, digits and -`);
  // Google, Microsoft, Apple: an OpenID Connect provider with its issuer filled in (federation-presets.ts).
  const expanded = expandPreset(env, name, settings, fail);
  const parsed = v.safeParse(Provider, expanded?.oidc ?? settings);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue.path?.map((item) => String(item.key)).join('.') ?? 'kind';
    // The issue's message may quote the value, which may be a secret: name the field only.
    throw fail(`has a bad ${path}: see config/README.md for the fields`);
  }
  const provider = parsed.output;
  const clientSecret = text(env, `PASSLANE_OAUTH_${name.toUpperCase().replaceAll('-', '_')}_CLIENT_SECRET`) ?? provider.clientSecret;
  const url = (value: string, field: string) =>
    httpsOrLoopbackUrl(value, fail, { notUrl: `has a ${field} that is not a URL`, notHttps: `has a ${field} that is not https (http only on a loopback host)` }).href;
  const redirectOrigins = provider.redirectOrigins.map((origin) => {
    const parsedOrigin = url(origin, 'redirect origin');
    if (new URL(parsedOrigin).origin !== origin) throw fail(`has the redirect origin ${JSON.stringify(origin)}: write the origin alone (scheme, host, port), with no path or trailing slash`);
    return origin;
  });
  const common = {
    name,
    clientId: provider.clientId,
    ...(clientSecret !== undefined && { clientSecret }),
    redirectOrigins,
    trustMfa: provider.trustMfa ?? false,
  };
  if (provider.kind === 'oidc') {
    const scopes = provider.scopes ?? DEFAULT_OIDC_SCOPES;
    if (!scopes.includes('openid')) throw fail('has scopes without "openid", which an OpenID Connect sign-in needs');
    url(provider.issuer, 'issuer');
    // As written: discovery compares the document's `issuer` with it exactly.
    return { kind: 'oidc', ...common, issuer: provider.issuer, scopes, responseMode: provider.responseMode ?? 'query', ...(expanded !== undefined && { preset: expanded.preset }) };
  }
  if (provider.trustMfa === true) throw fail('has trustMfa, but GitHub says nothing of how its users sign in');
  return {
    kind: 'github',
    ...common,
    scopes: provider.scopes ?? GITHUB_DEFAULTS.scopes,
    authorizationUrl: url(provider.authorizationUrl ?? GITHUB_DEFAULTS.authorizationUrl, 'authorizationUrl'),
    tokenUrl: url(provider.tokenUrl ?? GITHUB_DEFAULTS.tokenUrl, 'tokenUrl'),
    userUrl: url(provider.userUrl ?? GITHUB_DEFAULTS.userUrl, 'userUrl'),
    emailsUrl: url(provider.emailsUrl ?? GITHUB_DEFAULTS.emailsUrl, 'emailsUrl'),
  };
}
