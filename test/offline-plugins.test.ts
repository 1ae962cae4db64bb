/**
 * serverless.yml's two plugins for serverless-offline (infra/offline-environment.mjs,
 * infra/offline-set-cookie.mjs), on their own: the environment they give the functions from
 * serverless.yml as osls resolves it (`osls print`, here the real file's values), what they refuse
 * and how they say so; and the Set-Cookie serverless-offline 13 hands hapi, which statehood 8.2.1
 * refuses without the second. test/serverless-offline.test.ts runs them in serverless-offline.
 */
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import OfflineEnvironment, { type OfflineService } from '../infra/offline-environment.mjs';
import { passSetCookieThrough } from '../infra/offline-set-cookie.mjs';

class ServerlessError extends Error {}

/** What osls resolves serverless.yml's values to when no param is given (`osls print`). */
const HAS_MAIL_FROM = { 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] };
const SES_DOMAIN_IDENTITY = {
  'Fn::If': ['HasMailFrom', { 'Fn::Sub': ['arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${Domain}', { Domain: 'example.com' }] }, ''],
};
const ISSUER = { 'Fn::Sub': 'https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}' };

function service(overrides: { environment?: Record<string, unknown>; issuerUrl?: unknown; conditions?: Record<string, unknown> } = {}): OfflineService {
  return {
    provider: {
      environment: { POWERTOOLS_SERVICE_NAME: 'passlane', PASSLANE_JWT_ISSUER: 'http://localhost:3000', PASSLANE_VERIFY_TIME_MS: '5000' },
      httpApi: { authorizers: { passlaneJwt: { issuerUrl: overrides.issuerUrl ?? 'http://localhost:3000' }, passlaneSession: {} } },
    },
    functions: {
      login: {
        environment: {
          PASSLANE_TABLE: 'passlane-dev-users',
          PASSLANE_LOGIN_LIMIT_PER_IP: null,
          PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: '7',
          PASSLANE_SES_IDENTITY_ARN: SES_DOMAIN_IDENTITY,
          PASSLANE_PEPPER_KEYS_PARAMETER: '/passlane/dev/pepper-keys',
          PASSLANE_JWT_PRIVATE_KEY_PARAMETER: '/passlane/dev/jwt-private-key',
          PASSLANE_MIGRATION_SECRET_PARAMETER: null,
          ...overrides.environment,
        },
      },
      jwks: { environment: { PASSLANE_JWT_PUBLIC_KEYS: '{"keys":[]}' } },
      bench: {},
    },
    resources: { Conditions: { HasMailFrom: HAS_MAIL_FROM, ...overrides.conditions } },
  };
}

/** The plugin run as serverless-offline's start runs it, with `localEnv` as this process's environment. */
function prepared(target: OfflineService, localEnv: Record<string, string> = {}): OfflineService {
  const plugin = new OfflineEnvironment({ service: target, classes: { Error: ServerlessError } }, {}, {}, localEnv);
  plugin.hooks['before:offline:start:init']!();
  return target;
}

function refusal(target: OfflineService): string {
  try {
    prepared(target);
  } catch (error) {
    expect(error).toBeInstanceOf(ServerlessError);
    return (error as Error).message;
  }
  throw new Error('the plugin accepted it');
}

describe('infra/offline-environment.mjs: the environment a deployment would give', () => {
  it('leaves out what resolved to null, as `serverless package` does, instead of the string "null"', () => {
    const login = prepared(service()).functions!.login!.environment!;
    expect(login).not.toHaveProperty('PASSLANE_LOGIN_LIMIT_PER_IP');
    expect(login).not.toHaveProperty('PASSLANE_MIGRATION_SECRET_PARAMETER');
    expect(Object.values(login)).not.toContain(null);
    expect(login.PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE).toBe('7');
    expect(login.PASSLANE_TABLE).toBe('passlane-dev-users');
  });

  it('decides an Fn::If on a condition over plain values, as CloudFormation would', () => {
    expect(prepared(service()).functions!.login!.environment!.PASSLANE_SES_IDENTITY_ARN).toBe('');
    // With a sender the identity is derived from the account id, which only a deployment knows.
    const withSender = service({ conditions: { HasMailFrom: { 'Fn::Not': [{ 'Fn::Equals': ['Passlane <no-reply@example.com>', ''] }] } } });
    expect(refusal(withSender)).toContain('function login: PASSLANE_SES_IDENTITY_ARN is Fn::Sub');
  });

  it('puts a local secret in place of its SSM parameter, in the functions that name the parameter only', () => {
    const target = prepared(service(), { PASSLANE_PEPPER_KEYS: 'local:a2V5', PASSLANE_FINGERPRINT_KEY: 'a2V5', PASSLANE_JWT_PRIVATE_KEY: '  ' });
    const login = target.functions!.login!.environment!;
    expect(login.PASSLANE_PEPPER_KEYS).toBe('local:a2V5');
    expect(login).not.toHaveProperty('PASSLANE_PEPPER_KEYS_PARAMETER');
    // Blank is unset (config/env.ts): the parameter stays, and with it SSM.
    expect(login.PASSLANE_JWT_PRIVATE_KEY_PARAMETER).toBe('/passlane/dev/jwt-private-key');
    expect(login).not.toHaveProperty('PASSLANE_JWT_PRIVATE_KEY');
    // No function names the fingerprint key's parameter here: none gets the key.
    expect(JSON.stringify(target)).not.toContain('PASSLANE_FINGERPRINT_KEY');
    expect(target.functions!.jwks!.environment).toEqual({ PASSLANE_JWT_PUBLIC_KEYS: '{"keys":[]}' });
  });

  it('refuses, all at once and by name, what only CloudFormation fills in', () => {
    const target = service({
      issuerUrl: ISSUER,
      environment: { PASSLANE_TABLE: { Ref: 'UsersTable' }, PASSLANE_JWT_PUBLIC_KEYS: '{{resolve:ssm:/passlane/dev/jwt-public-keys}}' },
    });
    target.provider.environment!.PASSLANE_JWT_ISSUER = ISSUER;
    const message = refusal(target);
    expect(message).toContain('function login: PASSLANE_TABLE is Ref UsersTable');
    expect(message).toContain('function login: PASSLANE_JWT_PUBLIC_KEYS is a dynamic reference ({{resolve:ssm:/passlane/dev/jwt-public-keys}})');
    expect(message).toContain('provider.environment: PASSLANE_JWT_ISSUER is Fn::Sub');
    expect(message).toContain('authorizer passlaneJwt: issuerUrl is Fn::Sub');
    expect(message).toContain('--param');
  });

  it('leaves a service without such values as it was, and AWS::NoValue out', () => {
    const target = prepared(service({ environment: { PASSLANE_EXAMPLE: { 'Fn::If': ['HasMailFrom', 'x', { Ref: 'AWS::NoValue' }] } } }));
    expect(target.provider.environment).toEqual({ POWERTOOLS_SERVICE_NAME: 'passlane', PASSLANE_JWT_ISSUER: 'http://localhost:3000', PASSLANE_VERIFY_TIME_MS: '5000' });
    expect(target.functions!.login!.environment).not.toHaveProperty('PASSLANE_EXAMPLE');
    expect(target.functions!.bench).toEqual({});
  });
});

describe('infra/offline-set-cookie.mjs: a function\'s cookie as it wrote it', () => {
  // The statehood serverless-offline's hapi formats cookies with, as the plugin finds it.
  const fromOffline = createRequire(createRequire(import.meta.url).resolve('serverless-offline'));
  const { Definitions } = createRequire(fromOffline.resolve('@hapi/hapi'))('@hapi/statehood') as {
    Definitions: { new (options?: object): { format(cookies: unknown, context?: unknown): Promise<string[]> }; prototype: { format: unknown } };
  };
  const original = Definitions.prototype.format;
  afterAll(() => {
    Definitions.prototype.format = original;
  });
  const DEVICE_COOKIE = '__Host-passlane-device-abc';
  const DEVICE_VALUE = 'abc.def.ghi; Max-Age=15552000; Path=/; HttpOnly; Secure; SameSite=Strict';
  // How serverless-offline 13 (HttpServer.js) sets each entry of a payload 2.0 answer's `cookies`.
  const asServerlessOffline = { name: DEVICE_COOKIE, value: DEVICE_VALUE, options: { encoding: 'none', strictHeader: false } };

  it('statehood 8.2.1 refuses the cookie as serverless-offline 13 hands it over (else this plugin can go)', async () => {
    await expect(new Definitions().format([asServerlessOffline])).rejects.toThrow('Invalid cookie value');
  });

  it('with the plugin: that cookie verbatim, any other formatted as before', async () => {
    passSetCookieThrough(Definitions);
    passSetCookieThrough(Definitions);
    // serverless-offline's server settings unless --enforceSecureCookies (HttpServer.js).
    const offlineServer = { isSecure: false, isHttpOnly: false, isSameSite: false };
    const headers = await new Definitions(offlineServer).format([asServerlessOffline, { name: 'theme', value: 'dark', options: { path: '/' } }]);
    expect(headers).toEqual([`${DEVICE_COOKIE}=${DEVICE_VALUE}`, 'theme=dark; Path=/']);
    // Its own checks still hold for other cookies.
    await expect(new Definitions().format([{ name: 'bad', value: 'a;b' }])).rejects.toThrow('Invalid cookie value');
  });
});
