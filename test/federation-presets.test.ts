/**
 * The presets' own parts (features/federation/providers), against real signatures: a loopback
 * provider with a jose-made key (test/support/signing-provider.ts) plays Microsoft's
 * multi-tenant endpoints (a discovery issuer `{tenantid}` template, ID tokens whose `iss` names
 * the user's tenant) and Apple's token endpoint (whose client secret, an ES256 JWT, is checked
 * with jose against the key it was made from and Apple's documented claims). Google's bare
 * `accounts.google.com` issuer, the presets as PASSLANE_OAUTH_PROVIDERS reads them, and the
 * providers' secrets spread from one SSM parameter on Lambda.
 */
import * as oauth from 'oauth4webapi';
import { decodeProtectedHeader, exportPKCS8, generateKeyPair, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFederationConfig } from '../packages/server/src/config/federation-config.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { createProviderDirectory } from '../packages/server/src/features/federation/provider-directory.js';
import { ProviderRefusedError, type FederationProvider } from '../packages/server/src/features/federation/provider.js';
import { APPLE_SECRET_LIFETIME_SECONDS, APPLE_SECRET_MAX_SECONDS } from '../packages/server/src/features/federation/providers/apple-client-secret.js';
import { googleTuning } from '../packages/server/src/features/federation/providers/google.js';
import { CONSUMERS_TENANT, microsoftDiscoveryIssuer } from '../packages/server/src/features/federation/providers/microsoft.js';
import type { ProviderPreset } from '../packages/server/src/features/federation/providers/preset-settings.js';
import type { OidcProviderSettings } from '../packages/server/src/features/federation/settings.js';
import { spreadOAuthSecrets } from '../packages/server/src/runtimes/lambda/oauth-secrets.js';
import { SecretLoadError } from '../packages/server/src/runtimes/lambda/load-secrets.js';
import { startSigningProvider, type SigningProvider } from './support/signing-provider.js';

const PUBLIC = 'https://auth.example.com';
const CLIENT_ID = 'passlane-client';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const OTHER_TENANT = 'b7f4c2a0-1111-4222-8333-444455556666';

let provider: SigningProvider;
beforeAll(async () => {
  provider = await startSigningProvider();
});
afterAll(async () => provider?.stop());

function build(name: string, issuer: string, preset: ProviderPreset, extra: Partial<OidcProviderSettings> = {}): FederationProvider {
  const settings: OidcProviderSettings = { kind: 'oidc', name, issuer, clientId: CLIENT_ID, scopes: ['openid', 'email'], redirectOrigins: ['https://app.example.com'], trustMfa: false, responseMode: 'query', preset, ...extra };
  return createProviderDirectory({ publicUrl: PUBLIC, providers: [settings] }).get(name)!;
}

/** One sign-in's exchange: the authorization URL, then the callback with the ID token `claims` make (nonce, aud, times filled in). */
async function signIn(client: FederationProvider, claims: (form: URLSearchParams) => JWTPayload, now = new Date()) {
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const url = await client.authorizationUrl({ state, nonce, codeChallenge: await oauth.calculatePKCECodeChallenge(codeVerifier) });
  // Valid by the client's clock (oauth4webapi reads the real one, jose `now`).
  const seconds = Math.floor(Math.min(Date.now(), now.getTime()) / 1000);
  const until = Math.floor(Math.max(Date.now(), now.getTime()) / 1000) + 300;
  provider.answerWith((form) => provider.sign({ aud: CLIENT_ID, nonce, iat: seconds, exp: until, ...claims(form) }));
  const identity = await client.finish(new URLSearchParams({ code: 'a-code', state }), { state, nonce, codeVerifier }, now);
  return { url, identity, request: provider.tokenRequests.at(-1)! };
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ProviderRefusedError);
  return (error as ProviderRefusedError).reason;
};

describe('Microsoft: the multi-tenant issuer', () => {
  const template = () => `${provider.origin}/{tenantid}/v2.0`;
  beforeAll(() => {
    // As login.microsoftonline.com serves them: /common and /organizations name the template, a tenant's its own issuer.
    provider.publish('/common/v2.0', template());
    provider.publish('/organizations/v2.0', template());
    provider.publish(`/${TENANT}/v2.0`, `${provider.origin}/${TENANT}/v2.0`);
  });
  const common = (allowedTenants: string[] = []) => build('microsoft', `${provider.origin}/common/v2.0`, { kind: 'microsoft', allowedTenants });

  it('accepts a token whose iss names its own tid, from the template', async () => {
    const { identity } = await signIn(common(), () => ({ iss: `${provider.origin}/${TENANT}/v2.0`, tid: TENANT, sub: 'ms-user-1' }));
    expect(identity).toMatchObject({ provider: 'microsoft', subject: 'ms-user-1' });
  });

  it('refuses an iss of another tenant than its tid, the template itself, a token without tid, and one with no iss of the issuer', async () => {
    const client = common();
    expect(await refusal(signIn(client, () => ({ iss: `${provider.origin}/${OTHER_TENANT}/v2.0`, tid: TENANT, sub: 'x' })))).toBe('id_token');
    expect(await refusal(signIn(client, () => ({ iss: template(), tid: TENANT, sub: 'x' })))).toBe('id_token');
    expect(await refusal(signIn(client, () => ({ iss: `${provider.origin}/${TENANT}/v2.0`, sub: 'x' })))).toBe('id_token');
    expect(await refusal(signIn(client, () => ({ iss: `https://evil.example/${TENANT}/v2.0`, tid: TENANT, sub: 'x' })))).toBe('id_token');
    expect(await refusal(signIn(client, () => ({ iss: `${provider.origin}/{tenantid}/v2.0`, tid: '{tenantid}', sub: 'x' })))).toBe('id_token');
  });

  it('refuses a tenant off the allow-list, and accepts one on it', async () => {
    const client = common([OTHER_TENANT]);
    expect(await refusal(signIn(client, () => ({ iss: `${provider.origin}/${TENANT}/v2.0`, tid: TENANT, sub: 'x' })))).toBe('id_token');
    const { identity } = await signIn(client, () => ({ iss: `${provider.origin}/${OTHER_TENANT}/v2.0`, tid: OTHER_TENANT, sub: 'ms-user-2' }));
    expect(identity.subject).toBe('ms-user-2');
  });

  it('a single-tenant issuer accepts its tenant only', async () => {
    const client = build('contoso', `${provider.origin}/${TENANT}/v2.0`, { kind: 'microsoft', allowedTenants: [] });
    expect((await signIn(client, () => ({ iss: `${provider.origin}/${TENANT}/v2.0`, tid: TENANT, sub: 'c1' }))).identity.subject).toBe('c1');
    expect(await refusal(signIn(client, () => ({ iss: `${provider.origin}/${OTHER_TENANT}/v2.0`, tid: OTHER_TENANT, sub: 'c2' })))).toBe('id_token');
  });

  it('a signature by another key is refused even with the right issuer', async () => {
    const client = common();
    const { privateKey } = await generateKeyPair('RS256');
    const { SignJWT } = await import('jose');
    const state = 's'.repeat(43);
    const nonce = oauth.generateRandomNonce();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    await client.authorizationUrl({ state, nonce, codeChallenge: await oauth.calculatePKCECodeChallenge(codeVerifier) });
    const seconds = Math.floor(Date.now() / 1000);
    provider.answerWith(() =>
      new SignJWT({ iss: `${provider.origin}/${TENANT}/v2.0`, tid: TENANT, sub: 'x', aud: CLIENT_ID, nonce, iat: seconds, exp: seconds + 300 }).setProtectedHeader({ alg: 'RS256', kid: 'preset-key' }).sign(privateKey),
    );
    expect(await refusal(client.finish(new URLSearchParams({ code: 'c', state }), { state, nonce, codeVerifier }, new Date()))).toBe('id_token_signature');
  });

  it('an email counts as verified only with xms_edov: Microsoft verifies no email', async () => {
    const client = common();
    const claims = { iss: `${provider.origin}/${TENANT}/v2.0`, tid: TENANT, sub: 'ms-mail', email: 'someone@contoso.example' };
    expect((await signIn(client, () => ({ ...claims, email_verified: true }))).identity).toMatchObject({ email: 'someone@contoso.example', emailVerified: false });
    expect((await signIn(client, () => ({ ...claims, xms_edov: true }))).identity).toMatchObject({ emailVerified: true });
  });

  it('names the discovery issuer of each endpoint', () => {
    expect(microsoftDiscoveryIssuer('https://login.microsoftonline.com/common/v2.0')).toBe('https://login.microsoftonline.com/{tenantid}/v2.0');
    expect(microsoftDiscoveryIssuer('https://login.microsoftonline.com/organizations/v2.0')).toBe('https://login.microsoftonline.com/{tenantid}/v2.0');
    expect(microsoftDiscoveryIssuer('https://login.microsoftonline.com/consumers/v2.0')).toBe(`https://login.microsoftonline.com/${CONSUMERS_TENANT}/v2.0`);
    expect(microsoftDiscoveryIssuer(`https://login.microsoftonline.com/${TENANT}/v2.0`)).toBe(`https://login.microsoftonline.com/${TENANT}/v2.0`);
  });
});

describe('Apple: form_post, and the client secret made from the .p8 key', () => {
  let keys: CryptoKeyPair;
  let pem: string;
  const issuer = () => `${provider.origin}/apple`;
  beforeAll(async () => {
    keys = await generateKeyPair('ES256', { extractable: true });
    pem = await exportPKCS8(keys.privateKey);
    provider.publish('/apple', issuer());
  });
  const apple = () => build('apple', issuer(), { kind: 'apple', teamId: 'TEAM123456', keyId: 'KEY1234567', privateKey: pem }, { responseMode: 'form_post' });

  it('asks for a form post, and sends an ES256 secret with Apple\'s claims in the body, verified with the key\'s public half', async () => {
    const now = new Date();
    const { url, request, identity } = await signIn(apple(), () => ({ iss: issuer(), sub: 'apple-user.001', email: 'relay@privaterelay.appleid.com', email_verified: 'true' }), now);
    expect(url.searchParams.get('response_mode')).toBe('form_post');
    expect(request.authorization).toBeUndefined();
    expect(request.form.get('client_id')).toBe(CLIENT_ID);
    const secret = request.form.get('client_secret')!;
    expect(decodeProtectedHeader(secret)).toEqual({ alg: 'ES256', kid: 'KEY1234567' });
    const { payload } = await jwtVerify(secret, keys.publicKey, { issuer: 'TEAM123456', subject: CLIENT_ID, audience: issuer(), algorithms: ['ES256'], currentDate: now });
    expect(payload.iat).toBe(Math.floor(now.getTime() / 1000));
    expect(payload.exp! - payload.iat!).toBe(APPLE_SECRET_LIFETIME_SECONDS);
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(APPLE_SECRET_MAX_SECONDS);
    // The email only in the ID token, its email_verified a string.
    expect(identity).toMatchObject({ subject: 'apple-user.001', email: 'relay@privaterelay.appleid.com', emailVerified: true });
  });

  it('keeps its secret per container, and makes a new one before the old one ends', async () => {
    const client = apple();
    const claims = () => ({ iss: issuer(), sub: 'apple-user.002', email: 'a@example.com', email_verified: 'false' });
    const start = new Date();
    const first = (await signIn(client, claims, start)).request.form.get('client_secret');
    const later = (await signIn(client, claims, new Date(start.getTime() + 60_000))).request.form.get('client_secret');
    expect(later).toBe(first);
    const nearEnd = new Date(start.getTime() + (APPLE_SECRET_LIFETIME_SECONDS - 30 * 60) * 1000);
    const renewed = (await signIn(client, claims, nearEnd)).request.form.get('client_secret')!;
    expect(renewed).not.toBe(first);
    const { payload } = await jwtVerify(renewed, keys.publicKey, { currentDate: nearEnd });
    expect(payload.iat).toBe(Math.floor(nearEnd.getTime() / 1000));
    // email_verified "false": not verified.
    expect((await signIn(client, claims)).identity.emailVerified).toBe(false);
  });

  it('a key that is not a P-256 PKCS #8 key fails without quoting it', async () => {
    const rsa = await exportPKCS8((await generateKeyPair('RS256', { extractable: true })).privateKey);
    const client = build('apple-bad', issuer(), { kind: 'apple', teamId: 'TEAM123456', keyId: 'KEY1234567', privateKey: rsa });
    const error = await signIn(client, () => ({ iss: issuer(), sub: 'x' })).catch((caught: unknown) => caught);
    expect(String(error)).toMatch(/KEY1234567/);
    expect(String(error)).not.toMatch(/PRIVATE KEY|MII/);
  });
});

describe('Google: the issuer with and without https://', () => {
  it('expects the bare accounts.google.com only of a token that carries it, and only for Google', () => {
    const { tokenIssuer } = googleTuning();
    expect(tokenIssuer!({ iss: 'accounts.google.com' }, 'https://accounts.google.com')).toBe('accounts.google.com');
    expect(tokenIssuer!({ iss: 'https://accounts.google.com' }, 'https://accounts.google.com')).toBe('https://accounts.google.com');
    expect(tokenIssuer!({ iss: 'accounts.google.com' }, 'https://other.example')).toBe('https://other.example');
    expect(tokenIssuer!({ iss: 'https://evil.example' }, 'https://accounts.google.com')).toBe('https://accounts.google.com');
  });

  it('a stand-in whose discovery names Google\'s issuer is refused: the document must come from the issuer it names', async () => {
    provider.publish('/google', 'https://accounts.google.com');
    const client = build('google', `${provider.origin}/google`, { kind: 'google' });
    // Discovery is fetched from the local server but names Google's issuer: refused, as any mismatch.
    expect(await refusal(client.authorizationUrl({ state: 's', nonce: 'n', codeChallenge: 'c' }))).toBe('provider_unavailable');
  });
});

describe('the presets as PASSLANE_OAUTH_PROVIDERS reads them', () => {
  const read = (providers: unknown, env: Record<string, string> = {}) => readFederationConfig({ PASSLANE_OAUTH_PROVIDERS: JSON.stringify(providers), ...env }, { issuer: PUBLIC });
  const origins = ['https://app.example.com'];

  it('fills in each preset\'s issuer, response mode and own part', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const pem = await exportPKCS8(privateKey);
    const config = read(
      {
        google: { kind: 'google', clientId: 'g', redirectOrigins: origins },
        microsoft: { kind: 'microsoft', clientId: 'm', redirectOrigins: origins, allowedTenants: [TENANT.toUpperCase()] },
        work: { kind: 'microsoft', clientId: 'w', redirectOrigins: origins, tenant: 'organizations' },
        apple: { kind: 'apple', clientId: 'com.example.web', teamId: 'TEAM123456', keyId: 'KEY1234567', redirectOrigins: origins },
      },
      { PASSLANE_OAUTH_GOOGLE_CLIENT_SECRET: 'google-secret', PASSLANE_OAUTH_APPLE_PRIVATE_KEY: pem },
    )!;
    const [google, microsoft, work, apple] = config.providers as OidcProviderSettings[];
    expect(google).toMatchObject({ kind: 'oidc', issuer: 'https://accounts.google.com', clientSecret: 'google-secret', responseMode: 'query', preset: { kind: 'google' } });
    expect(microsoft).toMatchObject({ issuer: 'https://login.microsoftonline.com/common/v2.0', preset: { kind: 'microsoft', allowedTenants: [TENANT] } });
    expect(work).toMatchObject({ issuer: 'https://login.microsoftonline.com/organizations/v2.0', preset: { allowedTenants: [] } });
    expect(apple).toMatchObject({ issuer: 'https://appleid.apple.com', responseMode: 'form_post', scopes: ['openid', 'email'], preset: { kind: 'apple', teamId: 'TEAM123456', keyId: 'KEY1234567', privateKey: pem } });
    expect(apple!.clientSecret).toBeUndefined();
  });

  it('refuses an Apple provider without its key or with a client secret, a bad tenant, an unknown field; naming no value', () => {
    const apple = { kind: 'apple', clientId: 'com.example.web', teamId: 'TEAM123456', keyId: 'KEY1234567', redirectOrigins: origins };
    expect(() => read({ apple })).toThrow(/PASSLANE_OAUTH_APPLE_PRIVATE_KEY/);
    expect(() => read({ apple: { ...apple, clientSecret: 'a-secret-value' } }, { PASSLANE_OAUTH_APPLE_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nx' })).toThrow(ConfigError);
    expect(() => read({ apple: { ...apple, teamId: 'team' } })).toThrow(/teamId/);
    expect(() => read({ ms: { kind: 'microsoft', clientId: 'm', redirectOrigins: origins, tenant: 'contoso.example' } })).toThrow(/tenant/);
    expect(() => read({ ms: { kind: 'microsoft', clientId: 'm', redirectOrigins: origins, allowedTenants: ['not-a-guid'] } })).toThrow(/allowedTenants/);
    expect(() => read({ g: { kind: 'google', clientId: 'g', redirectOrigins: origins, issuer: 'https://evil.example' } })).toThrow(ConfigError);
    const message = (() => {
      try {
        read({ apple: { ...apple, clientSecret: 'a-secret-value' } }, { PASSLANE_OAUTH_APPLE_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nx' });
      } catch (error) {
        return String(error);
      }
    })();
    expect(message).not.toMatch(/a-secret-value|BEGIN/);
  });
});

describe('Lambda: the providers\' secrets from one SSM parameter', () => {
  it('spreads PASSLANE_OAUTH_SECRETS into each provider\'s variables', () => {
    const env = spreadOAuthSecrets({ PASSLANE_OAUTH_SECRETS: JSON.stringify({ google: { clientSecret: 'g-secret' }, 'sign-in-apple': { privateKey: 'PEM' } }), OTHER: 'kept' });
    expect(env).toMatchObject({ PASSLANE_OAUTH_GOOGLE_CLIENT_SECRET: 'g-secret', PASSLANE_OAUTH_SIGN_IN_APPLE_PRIVATE_KEY: 'PEM', OTHER: 'kept' });
    expect(spreadOAuthSecrets({ OTHER: 'kept' })).toEqual({ OTHER: 'kept' });
  });

  it('refuses what it cannot read, and a secret set twice, naming no value', () => {
    const refused = (value: string, env: Record<string, string> = {}) => {
      try {
        spreadOAuthSecrets({ PASSLANE_OAUTH_SECRETS: value, ...env });
      } catch (error) {
        expect(error).toBeInstanceOf(SecretLoadError);
        expect(String(error)).not.toMatch(/s3cret/);
        return String(error);
      }
      throw new Error('accepted');
    };
    expect(refused('s3cret')).toMatch(/not JSON/);
    expect(refused('["s3cret"]')).toMatch(/object/);
    expect(refused(JSON.stringify({ Google: { clientSecret: 's3cret' } }))).toMatch(/name/);
    expect(refused(JSON.stringify({ google: 's3cret' }))).toMatch(/google/);
    expect(refused(JSON.stringify({ google: { clientSecret: 's3cret', extra: 's3cret' } }))).toMatch(/fields/);
    expect(refused(JSON.stringify({ google: { clientSecret: 's3cret' } }), { PASSLANE_OAUTH_GOOGLE_CLIENT_SECRET: 'other' })).toMatch(/not both/);
  });
});
