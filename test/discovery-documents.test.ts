/**
 * The discovery documents: RFC 8414's `/.well-known/oauth-authorization-server` and
 * `/.well-known/openid-configuration`, one document with exactly what exists (the issuer, the
 * token endpoint, the keys, the refresh grant, no client authentication) and nothing an OAuth or
 * OIDC client could take for an authorization endpoint or ID tokens; where its URLs come from;
 * and both routes through the discovery function's Lambda handler.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { authorizationServerMetadata } from '../packages/server/src/features/tokens/authorization-server-metadata.js';
import { openIdConfiguration } from '../packages/server/src/features/tokens/openid-configuration.js';
import { AuthorizationServerMetadata } from '../packages/server/src/features/tokens/token-schemas.js';
import { createKeyring, generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { createPublicTokenService } from '../packages/server/src/features/tokens/token-service.js';
import { createOpenIdConfigurationHandler } from './support/lambda-handlers.js';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

const ORIGIN = 'https://abc.execute-api.eu-west-1.amazonaws.com';

describe('the discovery document', () => {
  it('says exactly what exists: issuer, token endpoint, keys, the refresh grant, no client authentication', () => {
    const document = authorizationServerMetadata({ issuer: ORIGIN }, 'https://ignored.example');
    expect(document).toEqual({
      issuer: ORIGIN,
      token_endpoint: `${ORIGIN}/token`,
      jwks_uri: `${ORIGIN}/.well-known/jwks.json`,
      grant_types_supported: ['refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
    });
    expect(v.safeParse(AuthorizationServerMetadata, document).success).toBe(true);
  });

  it('is the OpenID document too, without a word about ID tokens, response types or an authorization endpoint', () => {
    const settings = { issuer: `${ORIGIN}/prod` };
    const document = openIdConfiguration(settings, ORIGIN)!;
    expect(document).toEqual(authorizationServerMetadata(settings, ORIGIN));
    // What API Gateway's JWT authorizer reads is there.
    expect(document).toMatchObject({ issuer: `${ORIGIN}/prod`, jwks_uri: `${ORIGIN}/prod/.well-known/jwks.json` });
    for (const absent of ['response_types_supported', 'id_token_signing_alg_values_supported', 'subject_types_supported', 'authorization_endpoint', 'userinfo_endpoint', 'scopes_supported']) {
      expect(document, absent).not.toHaveProperty(absent);
    }
  });

  it('puts the endpoints under PASSLANE_PUBLIC_URL, else a URL issuer, and under the request origin only when trusted', () => {
    // An issuer with a path: the endpoints are under it (a custom domain's base path).
    expect(authorizationServerMetadata({ issuer: 'https://auth.example.com/prod/' }, ORIGIN)?.token_endpoint).toBe('https://auth.example.com/prod/token');
    // PASSLANE_PUBLIC_URL wins over the issuer, which stays what tokens say.
    expect(authorizationServerMetadata({ issuer: 'passlane', publicUrl: 'https://keys.example.com/auth' }, 'https://evil.example')).toMatchObject({
      issuer: 'passlane',
      token_endpoint: 'https://keys.example.com/auth/token',
      jwks_uri: 'https://keys.example.com/auth/.well-known/jwks.json',
    });
    // Nothing says where: the request's Host is not trusted (the document is cached publicly) unless the deployment says so.
    expect(authorizationServerMetadata({ issuer: 'passlane' }, 'https://evil.example')).toBeUndefined();
    expect(authorizationServerMetadata({ issuer: 'passlane', trustHostHeader: true }, 'http://127.0.0.1:3000')).toMatchObject({
      token_endpoint: 'http://127.0.0.1:3000/token',
      jwks_uri: 'http://127.0.0.1:3000/.well-known/jwks.json',
    });
  });
});

describe('the discovery function (functions/openid-configuration.ts)', () => {
  const get = (path: string): APIGatewayProxyEventV2 => ({
    version: '2.0',
    routeKey: `GET ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'abc.execute-api.eu-west-1.amazonaws.com' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc',
      domainName: 'abc.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '10.0.0.1', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey: `GET ${path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  });
  const context = { awsRequestId: randomUUID(), functionName: 'openid-configuration' } as Context;

  it('serves both documents alike, publicly cacheable, and 404 while the API has no URL', async () => {
    const keyring = await createKeyring(await generateSigningKey('RS256'));
    const served = createOpenIdConfigurationHandler(async () => createPublicTokenService({ keyring, issuer: ORIGIN }));
    const oauth = await served(get('/.well-known/oauth-authorization-server'), context);
    const oidc = await served(get('/.well-known/openid-configuration'), context);
    for (const answer of [oauth, oidc]) {
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    }
    expect(JSON.parse(oauth.body)).toEqual(authorizationServerMetadata({ issuer: ORIGIN }, ORIGIN));
    expect(JSON.parse(oidc.body)).toEqual(JSON.parse(oauth.body));

    const unconfigured = createOpenIdConfigurationHandler(async () => createPublicTokenService({ keyring }));
    const missing = await unconfigured(get('/.well-known/oauth-authorization-server'), context);
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ error: { code: 'not_found', message: expect.stringMatching(/PASSLANE_PUBLIC_URL/) } });
  });
});
