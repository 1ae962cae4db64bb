/**
 * The configuration module (src/config): every variable read and checked in one place, errors
 * that name the variable, and the guard that keeps it, with each runtime's one read of its
 * environment, the only place (and src/wiring the only place that builds services from it).
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { readCorsConfig } from '../packages/server/src/config/cors-config.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { readServerConfig } from '../packages/server/src/config/server-config.js';
import { readWorkerConfig, stringBindings } from '../packages/server/src/runtimes/workers/worker-env.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// Pepper keys are AES-256 keys: 32 bytes, standard base64.
const PEPPER_K2 = Buffer.alloc(32, 2).toString('base64');
const PEPPER_K1 = Buffer.alloc(32, 1).toString('base64');

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  return expect.fail('expected a ConfigError');
}

describe('readConfig', () => {
  it('has a default for everything a local run needs', () => {
    expect(readConfig({})).toEqual({
      storage: { table: 'passlane-users' },
      // Both hooks off (src/hooks): nothing asked.
      hooks: {},
      hasher: { backend: undefined, pepper: undefined, verifyBudget: {}, onLambda: false },
      tokens: {
        issuer: 'passlane',
        audience: 'passlane-api',
        clientId: 'passlane',
        scopes: [],
        ttlSeconds: 900,
        keys: { previousPublicJwks: [], algorithm: undefined },
        localKeyDir: '.data',
        onLambda: false,
        publicUrl: undefined,
        trustHostHeader: false,
      },
      rateLimits: {
        perSource: 100,
        windowSeconds: 300,
        passwordChangePerAccount: 10,
        login: {
          failuresPerAccountSource: 5,
          delayBaseSeconds: 30,
          delayMaxSeconds: 900,
          accountFailureCeiling: 100,
          accountLockSeconds: 3600,
          failureFloorMs: 0,
          successesPerAccount: 30,
          successesPerSource: 300,
        },
      },
      rehash: {},
      fingerprint: { localKeyDir: '.data', onLambda: false },
      sessions: {
        idleSeconds: 1_209_600,
        maxAgeSeconds: 2_592_000,
        graceSeconds: 10,
        perAccount: 10,
        refreshesPerSessionPerHour: 60,
        refreshFailuresPerSource: 50,
        deviceSeconds: 15_552_000,
        devicesPerAccount: 20,
      },
      authorizer: { cacheSeconds: 5 },
      recovery: { resetTokenSeconds: 3600, verifyTokenSeconds: 86_400, wrongTokenLimit: 5, mailsPerAccountPerHour: 3, emailVerification: false, requireVerifiedEmail: false },
      deviceApproval: { tokenSeconds: 900, mailsPerAccountPerHour: 3, wrongClientLimit: 5 },
      mail: {
        transport: 'outbox',
        appUrl: 'http://localhost:3000',
        paths: { passwordReset: '/reset-password', emailVerification: '/verify-email', signIn: '/sign-in', deviceApproval: '/approve-device', factorUndo: '/undo-factor', emailChange: '/confirm-email-change', emailChangeUndo: '/undo-email-change' },
        serviceName: 'passlane',
        outboxDir: '.data/outbox',
        ses: {},
      },
      mfa: { issuer: 'passlane', localKeyDir: '.data', onLambda: false, requireMfa: false },
      passwords: {
        minLength: 8,
        serviceName: 'passlane',
        breachCheck: { enabled: false, url: 'https://api.pwnedpasswords.com/range/', timeoutMs: 1000, minCount: 1, failClosed: false },
      },
      events: { enabled: false },
    });
    expect(readServerConfig({})).toEqual({ port: 3000, host: '127.0.0.1', dataDir: '.data', dynamoDbPort: 8000, dynamoDbEndpoint: undefined });
  });

  it('records account events only when PASSLANE_EVENTS is on, and refuses anything but on and off', () => {
    expect(readConfig({ PASSLANE_EVENTS: 'on' }).events).toEqual({ enabled: true });
    expect(readConfig({ PASSLANE_EVENTS: 'off' }).events).toEqual({ enabled: false });
    expect(() => readConfig({ PASSLANE_EVENTS: 'true' })).toThrow(/PASSLANE_EVENTS/);
  });

  it('reads the recovery settings and refuses requiring a verification that is never sent', () => {
    expect(readConfig({ PASSLANE_EMAIL_VERIFICATION: 'true', PASSLANE_REQUIRE_VERIFIED_EMAIL: 'true', PASSLANE_RESET_TOKEN_TTL_S: '900' }).recovery).toMatchObject({
      emailVerification: true,
      requireVerifiedEmail: true,
      resetTokenSeconds: 900,
    });
    expect(() => readConfig({ PASSLANE_REQUIRE_VERIFIED_EMAIL: 'true' })).toThrow(/PASSLANE_REQUIRE_VERIFIED_EMAIL/);
    expect(() => readConfig({ PASSLANE_EMAIL_VERIFICATION: 'yes' })).toThrow(/PASSLANE_EMAIL_VERIFICATION/);
    expect(() => readConfig({ PASSLANE_RESET_TOKEN_TTL_S: '60' })).toThrow(/PASSLANE_RESET_TOKEN_TTL_S/);
  });

  it('reads the password rules and the breach check, within NIST\'s bounds', () => {
    expect(
      readConfig({
        PASSLANE_PASSWORD_MIN_LENGTH: '15',
        PASSLANE_SERVICE_NAME: 'Acme Bank',
        PASSLANE_BREACH_CHECK: 'true',
        PASSLANE_BREACH_CHECK_URL: 'http://127.0.0.1:8123/range',
        PASSLANE_BREACH_CHECK_TIMEOUT_MS: '250',
        PASSLANE_BREACH_CHECK_MIN_COUNT: '10',
        PASSLANE_BREACH_CHECK_FAIL_CLOSED: 'true',
      }).passwords,
    ).toEqual({
      minLength: 15,
      serviceName: 'Acme Bank',
      breachCheck: { enabled: true, url: 'http://127.0.0.1:8123/range/', timeoutMs: 250, minCount: 10, failClosed: true },
    });
    // Never below NIST's 8, and 64 at most (the maximum accepted length is 256).
    expect(configError(() => readConfig({ PASSLANE_PASSWORD_MIN_LENGTH: '7' })).variable).toBe('PASSLANE_PASSWORD_MIN_LENGTH');
    expect(configError(() => readConfig({ PASSLANE_PASSWORD_MIN_LENGTH: '65' })).variable).toBe('PASSLANE_PASSWORD_MIN_LENGTH');
    expect(configError(() => readConfig({ PASSLANE_BREACH_CHECK: 'yes' })).variable).toBe('PASSLANE_BREACH_CHECK');
    expect(configError(() => readConfig({ PASSLANE_BREACH_CHECK_TIMEOUT_MS: '50' })).variable).toBe('PASSLANE_BREACH_CHECK_TIMEOUT_MS');
    expect(configError(() => readConfig({ PASSLANE_BREACH_CHECK_MIN_COUNT: '0' })).variable).toBe('PASSLANE_BREACH_CHECK_MIN_COUNT');
    for (const url of ['ftp://example.com/range/', 'https://example.com/range?x=1', 'not a url', 'https://user:pw@example.com/range/']) {
      expect(configError(() => readConfig({ PASSLANE_BREACH_CHECK_URL: url })).variable).toBe('PASSLANE_BREACH_CHECK_URL');
    }
  });

  it('reads session lifetimes and limits, keeping the idle timeout within the absolute lifetime', () => {
    expect(
      readConfig({
        PASSLANE_SESSION_IDLE_S: '3600',
        PASSLANE_SESSION_MAX_AGE_S: '86400',
        PASSLANE_REFRESH_GRACE_S: '0',
        PASSLANE_SESSIONS_PER_ACCOUNT: '3',
        PASSLANE_REFRESH_LIMIT_PER_SESSION: '12',
        PASSLANE_REFRESH_FAILURES_PER_SOURCE: '7',
        PASSLANE_DEVICE_TTL_S: '7200',
        PASSLANE_DEVICES_PER_ACCOUNT: '4',
      }).sessions,
    ).toEqual({ idleSeconds: 3600, maxAgeSeconds: 86400, graceSeconds: 0, perAccount: 3, refreshesPerSessionPerHour: 12, refreshFailuresPerSource: 7, deviceSeconds: 7200, devicesPerAccount: 4 });
    expect(() => readConfig({ PASSLANE_DEVICES_PER_ACCOUNT: '51' })).toThrow(/PASSLANE_DEVICES_PER_ACCOUNT/);
    expect(() => readConfig({ PASSLANE_DEVICE_TTL_S: '60' })).toThrow(/PASSLANE_DEVICE_TTL_S/);
    // A shorter absolute lifetime caps the default idle timeout rather than failing.
    expect(readConfig({ PASSLANE_SESSION_MAX_AGE_S: '7200' }).sessions.idleSeconds).toBe(7200);
    expect(() => readConfig({ PASSLANE_SESSION_MAX_AGE_S: '7200', PASSLANE_SESSION_IDLE_S: '7201' })).toThrow(/PASSLANE_SESSION_IDLE_S/);
    expect(() => readConfig({ PASSLANE_SESSIONS_PER_ACCOUNT: '51' })).toThrow(/PASSLANE_SESSIONS_PER_ACCOUNT/);
    expect(() => readConfig({ PASSLANE_REFRESH_GRACE_S: '61' })).toThrow(/PASSLANE_REFRESH_GRACE_S/);
  });

  it('reads each variable into its typed place, trimming, with blank meaning unset', () => {
    const config = readConfig({
      PASSLANE_TABLE: ' accounts ',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKID',
      AWS_SECRET_ACCESS_KEY: 'secret',
      PASSLANE_ARGON2_BACKEND: 'wasm',
      PASSLANE_PEPPER_KEYS: `k2:${PEPPER_K2},k1:${PEPPER_K1}`,
      PASSLANE_JWT_ISSUER: 'https://auth.example.com',
      PASSLANE_JWT_ALG: 'ES256',
      PASSLANE_ACCESS_TOKEN_TTL_S: '300',
      PASSLANE_LOGIN_LIMIT_PER_IP: '50',
      PASSLANE_LOGIN_FAILURE_PAD_FACTOR: ' 4.5 ',
      PASSLANE_REHASH_WRITES_PER_SECOND: '25',
      PASSLANE_DATA_DIR: '/tmp/keys',
      AWS_LAMBDA_FUNCTION_NAME: 'passlane-login',
      PASSLANE_JWT_AUDIENCE: '  ',
      PASSLANE_OAUTH_CLIENT_ID: ' web-app ',
      PASSLANE_TOKEN_SCOPES: ' orders:read  profile orders:read ',
      PASSLANE_REQUIRED_SCOPE: ' profile ',
    });
    expect(config.storage).toEqual({
      table: 'accounts',
      endpoint: 'http://127.0.0.1:8000',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
    });
    expect(config.hasher).toEqual({
      backend: 'wasm',
      pepper: { currentKeyId: 'k2', keys: { k2: PEPPER_K2, k1: PEPPER_K1 } },
      verifyBudget: {},
      onLambda: true,
    });
    expect(config.tokens).toMatchObject({
      issuer: 'https://auth.example.com',
      audience: 'passlane-api',
      ttlSeconds: 300,
      keys: { algorithm: 'ES256' },
      localKeyDir: '/tmp/keys',
      onLambda: true,
      clientId: 'web-app',
      scopes: ['orders:read', 'profile'],
      requiredScope: 'profile',
    });
    expect(config.rateLimits.perSource).toBe(50);
    expect(config.rateLimits.login.failurePadFactor).toBe(4.5);
    expect(config.rehash).toEqual({ writesPerSecond: 25 });
  });

  it.each([
    ['PASSLANE_ARGON2_BACKEND', 'gpu'],
    ['PASSLANE_PEPPER_KEYS', 'no-colon'],
    ['PASSLANE_PEPPER_KEYS', 'k1:a2V5,k1:b2xk'],
    ['PASSLANE_JWT_ALG', 'none'],
    ['PASSLANE_JWT_PRIVATE_KEY', '[1,2]'],
    ['PASSLANE_JWT_PUBLIC_KEYS', '[]'],
    ['PASSLANE_JWT_PUBLIC_KEYS', '{"kty":"OKP"}'],
    ['PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS', 'not json'],
    ['PASSLANE_ACCESS_TOKEN_TTL_S', '15m'],
    ['PASSLANE_ACCESS_TOKEN_TTL_S', '59'],
    ['PASSLANE_OAUTH_CLIENT_ID', 'café'],
    ['PASSLANE_TOKEN_SCOPES', 'read "write"'],
    ['PASSLANE_TOKEN_SCOPES', 'read\twrite'],
    ['PASSLANE_REQUIRED_SCOPE', 'read write'],
    ['PASSLANE_REQUIRED_SCOPE', 'a\\b'],
    ['PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE', '0'],
    ['PASSLANE_LOGIN_LIMIT_PER_IP', '1.5'],
    ['PASSLANE_LOGIN_LIMIT_WINDOW_S', '86401'],
    ['PASSLANE_LOGIN_FAILURE_PAD_FACTOR', '0.5'],
    ['PASSLANE_LOGIN_FAILURE_PAD_FACTOR', '101'],
    ['PASSLANE_LOGIN_FAILURE_PAD_FACTOR', '4,5'],
    ['PASSLANE_LOGIN_FAILURE_PAD_FACTOR', '1e1'],
    ['PASSLANE_REHASH_WRITES_PER_SECOND', '-1'],
    ['PASSLANE_AUTHORIZER_CACHE_S', '61'],
    ['PASSLANE_DEVICE_APPROVAL_TTL_S', '3601'],
    ['PASSLANE_DEVICE_APPROVAL_MAILS_PER_HOUR', '0'],
  ])('refuses %s=%s with an error naming the variable', (variable, value) => {
    const error = configError(() => readConfig({ [variable]: value }));
    expect(error.variable).toBe(variable);
    expect(error.code).toBe('ERR_CONFIG');
    expect(error.message.startsWith(variable)).toBe(true);
  });

  it.each([
    ['PORT', '70000'],
    ['DYNAMODB_PORT', 'eight'],
  ])('refuses the server setting %s=%s', (variable, value) => {
    expect(configError(() => readServerConfig({ [variable]: value })).variable).toBe(variable);
  });

  it('says a JWK is expected, and that passlane keygen makes one, for a PEM key or other text', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIKeySecretMaterial\n-----END PRIVATE KEY-----';
    const fromPem = configError(() => readConfig({ PASSLANE_JWT_PRIVATE_KEY: pem }));
    expect(fromPem.message).toMatch(/^PASSLANE_JWT_PRIVATE_KEY is a PEM key; it must be a private JWK \(a JSON object\): `passlane keygen` makes one/);
    expect(fromPem.message).not.toContain('KeySecretMaterial');
    expect(configError(() => readConfig({ PASSLANE_JWT_PRIVATE_KEY: 'secret' })).message).toMatch(/is not valid JSON; it must be a private JWK .*passlane keygen/);
  });

  it('never quotes a key in its errors', () => {
    const secret = 'MC4CAQAwBQYDK2VwBCIEIKeySecretMaterial';
    for (const value of [`{"d":"${secret}",`, `["${secret}"]`]) {
      const error = configError(() => readConfig({ PASSLANE_JWT_PRIVATE_KEY: value }));
      expect(error.message).not.toContain(secret);
    }
    const mismatch = configError(() => readConfig({ PASSLANE_JWT_PRIVATE_KEY: `{"kid":"a","d":"${secret}"}`, PASSLANE_JWT_KEY_ID: 'b' }));
    expect(mismatch.variable).toBe('PASSLANE_JWT_KEY_ID');
    expect(mismatch.message).not.toContain(secret);
  });

  it('reads a Worker\'s bindings the same way, ignoring the ones that are not strings', () => {
    const bindings = { PASSLANE_TABLE: 'edge', PASSLANE_LOGIN_LIMIT_PER_IP: '7', ASSETS: { fetch() {} }, RATE: 3 };
    expect(readConfig(stringBindings(bindings))).toEqual(readConfig({ PASSLANE_TABLE: 'edge', PASSLANE_LOGIN_LIMIT_PER_IP: '7' }));
    // The Worker's reader: no file system for an outbox, so mail is off unless a transport is bound.
    expect(readWorkerConfig(bindings)).toEqual(readConfig({ PASSLANE_TABLE: 'edge', PASSLANE_LOGIN_LIMIT_PER_IP: '7', PASSLANE_MAIL_TRANSPORT: 'none' }));
    expect(readWorkerConfig({ ...bindings, PASSLANE_MAIL_TRANSPORT: 'ses' }).mail.transport).toBe('ses');
  });
});

describe('readConfig: mail', () => {
  it('sends through SES on Lambda, where the app URL has no default', () => {
    expect(readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'passlane-register', AWS_REGION: 'eu-central-1' }).mail).toEqual({
      transport: 'ses',
      appUrl: undefined,
      paths: { passwordReset: '/reset-password', emailVerification: '/verify-email', signIn: '/sign-in', deviceApproval: '/approve-device', factorUndo: '/undo-factor', emailChange: '/confirm-email-change', emailChangeUndo: '/undo-email-change' },
      serviceName: 'passlane',
      outboxDir: '.data/outbox',
      ses: { region: 'eu-central-1' },
    });
  });

  it('reads every mail setting; SES uses the region of the identity it sends as', () => {
    expect(
      readConfig({
        PASSLANE_MAIL_TRANSPORT: 'ses',
        PASSLANE_MAIL_FROM: '"Example, Inc." <no-reply@example.com>',
        PASSLANE_APP_URL: 'https://app.example.com/account/',
        PASSLANE_APP_PASSWORD_RESET_PATH: '/reset?step=new',
        PASSLANE_APP_EMAIL_VERIFICATION_PATH: '/verify',
        PASSLANE_APP_SIGN_IN_PATH: '/login',
        PASSLANE_APP_DEVICE_APPROVAL_PATH: '/devices/approve',
        PASSLANE_APP_FACTOR_UNDO_PATH: '/security/undo',
        PASSLANE_APP_EMAIL_CHANGE_PATH: '/security/email',
        PASSLANE_APP_EMAIL_CHANGE_UNDO_PATH: '/security/email-undo',
        PASSLANE_SERVICE_NAME: 'Example Accounts',
        PASSLANE_MAIL_TEMPLATE_DIR: '/opt/mail-templates',
        PASSLANE_DATA_DIR: '/tmp/passlane/',
        PASSLANE_SES_IDENTITY_ARN: 'arn:aws:ses:eu-west-1:123456789012:identity/example.com',
        PASSLANE_SES_CONFIGURATION_SET: 'passlane-events',
        PASSLANE_SES_ENDPOINT: 'http://127.0.0.1:4566',
        AWS_REGION: 'eu-central-2',
        AWS_ACCESS_KEY_ID: 'AKID',
        AWS_SECRET_ACCESS_KEY: 'secret',
      }).mail,
    ).toEqual({
      transport: 'ses',
      from: { name: 'Example, Inc.', address: 'no-reply@example.com' },
      appUrl: 'https://app.example.com/account',
      paths: { passwordReset: '/reset?step=new', emailVerification: '/verify', signIn: '/login', deviceApproval: '/devices/approve', factorUndo: '/security/undo', emailChange: '/security/email', emailChangeUndo: '/security/email-undo' },
      serviceName: 'Example Accounts',
      templateDir: '/opt/mail-templates',
      outboxDir: '/tmp/passlane/outbox',
      ses: {
        endpoint: 'http://127.0.0.1:4566',
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
        identityArn: 'arn:aws:ses:eu-west-1:123456789012:identity/example.com',
        configurationSet: 'passlane-events',
      },
    });
    expect(readConfig({ PASSLANE_MAIL_FROM: 'no-reply@example.com' }).mail.from).toEqual({ address: 'no-reply@example.com' });
    // A local app and test servers may use http even with SES.
    expect(readConfig({ PASSLANE_MAIL_TRANSPORT: 'ses', PASSLANE_APP_URL: 'http://localhost:5173' }).mail.appUrl).toBe('http://localhost:5173');
    expect(readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'f', PASSLANE_MAIL_TRANSPORT: 'none' }).mail.transport).toBe('none');
  });

  it.each([
    ['PASSLANE_MAIL_TRANSPORT', 'smtp', {}],
    // The outbox prints links with their tokens: never into CloudWatch.
    ['PASSLANE_MAIL_TRANSPORT', 'outbox', { AWS_LAMBDA_FUNCTION_NAME: 'passlane-register' }],
    ['PASSLANE_MAIL_FROM', 'no reply', {}],
    ['PASSLANE_MAIL_FROM', 'a@example.com, b@example.com', {}],
    ['PASSLANE_MAIL_FROM', 'Example <no-reply@example.com', {}],
    ['PASSLANE_APP_URL', 'app.example.com', {}],
    ['PASSLANE_APP_URL', 'javascript:alert(1)', {}],
    ['PASSLANE_APP_URL', 'https://app.example.com/?from=mail', {}],
    ['PASSLANE_APP_URL', 'https://app.example.com/#/reset', {}],
    ['PASSLANE_APP_URL', 'https://user:pass@app.example.com', {}],
    ['PASSLANE_APP_URL', 'http://app.example.com', { PASSLANE_MAIL_TRANSPORT: 'ses' }],
    ['PASSLANE_APP_PASSWORD_RESET_PATH', 'reset', {}],
    ['PASSLANE_APP_SIGN_IN_PATH', '/sign-in#now', {}],
    ['PASSLANE_SERVICE_NAME', 'Example\r\nBcc: x@example.com', {}],
    ['PASSLANE_SES_IDENTITY_ARN', 'example.com', {}],
    ['PASSLANE_SES_CONFIGURATION_SET', 'has spaces', {}],
    ['PASSLANE_SES_ENDPOINT', 'localhost:4566', {}],
  ])('refuses %s=%j with an error naming the variable', (variable, value, extra: Record<string, string>) => {
    const error = configError(() => readConfig({ ...extra, [variable]: value }));
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(variable)).toBe(true);
  });

  it('links the mails to the server itself, on its PORT, unless PASSLANE_APP_URL names an app', () => {
    expect(readConfig({ PORT: '47001' }).mail.appUrl).toBe('http://localhost:47001');
    expect(readConfig({ PORT: '8080', HOST: '0.0.0.0' }).mail.appUrl).toBe('http://localhost:8080');
    expect(readConfig({ PORT: '8080', HOST: 'dev.example.test' }).mail.appUrl).toBe('http://dev.example.test:8080');
    expect(readConfig({ PORT: '8080', HOST: '::1' }).mail.appUrl).toBe('http://localhost:8080');
    expect(readConfig({ PORT: '47001', PASSLANE_APP_URL: 'http://localhost:5173/' }).mail.appUrl).toBe('http://localhost:5173');
    expect(readConfig({ PORT: '47001', PASSLANE_MAIL_TRANSPORT: 'ses' }).mail.appUrl).toBeUndefined();
    expect(readServerConfig({ PASSLANE_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => readServerConfig({ PASSLANE_LOG_FORMAT: 'yaml' })).toThrow(/^PASSLANE_LOG_FORMAT must be one of text, json/);
  });

  it.each([
    ['k1:c2hvcnQ=', 'key "k1" is 5 bytes, not the 32 bytes AES-256 needs'],
    ['k1:not base64!', 'key "k1" is not standard base64'],
    [`bad id:${'A'.repeat(43)}=`, 'key "bad id" has an id other than'],
  ])('refuses PASSLANE_PEPPER_KEYS=%j naming the variable, never the key', (value, why) => {
    const error = configError(() => readConfig({ PASSLANE_PEPPER_KEYS: value }));
    expect(error.variable).toBe('PASSLANE_PEPPER_KEYS');
    expect(error.message).toContain(`PASSLANE_PEPPER_KEYS ${why}`);
    expect(error.message).not.toContain(value.split(':')[1]);
  });
});

describe('readCorsConfig', () => {
  it('lists no origin by default, and each listed one once, as a browser sends it', () => {
    expect(readCorsConfig({})).toEqual({ allowedOrigins: [] });
    expect(readCorsConfig({ PASSLANE_CORS_ORIGINS: ' ' })).toEqual({ allowedOrigins: [] });
    expect(readCorsConfig({ PASSLANE_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173,https://app.example.com,https://admin.example.com:8443' })).toEqual({
      allowedOrigins: ['https://app.example.com', 'http://localhost:5173', 'https://admin.example.com:8443'],
    });
  });

  it('refuses a wildcard, an insecure origin and anything a browser would not send, naming the variable', () => {
    const refused = (value: string) => {
      const error = configError(() => readCorsConfig({ PASSLANE_CORS_ORIGINS: value }));
      expect(error.variable).toBe('PASSLANE_CORS_ORIGINS');
      return error.message;
    };
    expect(refused('*')).toMatch(/one by one/);
    expect(refused('https://app.example.com,null')).toMatch(/one by one/);
    expect(refused('http://app.example.com')).toMatch(/https/);
    expect(refused('app.example.com')).toMatch(/list of origins/);
    expect(refused('https://app.example.com,')).toMatch(/list of origins/);
    // A path, a trailing slash, a default port or capitals never match an Origin header.
    expect(refused('https://app.example.com/')).toMatch(/such as https:\/\/app\.example\.com\)?/);
    expect(refused('https://app.example.com/login')).toMatch(/scheme, host and port only/);
    expect(refused('https://App.example.com')).toMatch(/such as https:\/\/app\.example\.com/);
    expect(refused('https://app.example.com:443')).toMatch(/such as https:\/\/app\.example\.com/);
  });
});

describe('readFederationConfig (PASSLANE_OAUTH_PROVIDERS)', () => {
  const providers = (value: unknown, extra: Record<string, string> = {}) =>
    readConfig({ PASSLANE_PUBLIC_URL: 'https://auth.example.com/', PASSLANE_OAUTH_PROVIDERS: JSON.stringify(value), ...extra }).federation;

  it('is off unless set, and reads OIDC and GitHub providers with their defaults', () => {
    expect(readConfig({}).federation).toBeUndefined();
    const config = providers(
      {
        google: { kind: 'oidc', issuer: 'https://accounts.google.com', clientId: 'g', redirectOrigins: ['https://app.example.com'] },
        github: { kind: 'github', clientId: 'h', clientSecret: 'in-json', redirectOrigins: ['http://localhost:5173'] },
      },
      { PASSLANE_OAUTH_GITHUB_CLIENT_SECRET: 'apart' },
    );
    expect(config).toEqual({
      publicUrl: 'https://auth.example.com',
      providers: [
        { kind: 'oidc', name: 'google', issuer: 'https://accounts.google.com', clientId: 'g', scopes: ['openid', 'email', 'profile'], redirectOrigins: ['https://app.example.com'], trustMfa: false, responseMode: 'query' },
        expect.objectContaining({ kind: 'github', name: 'github', clientSecret: 'apart', tokenUrl: 'https://github.com/login/oauth/access_token', trustMfa: false }),
      ],
    });
  });

  it('refuses what would weaken a sign-in, naming the variable and never quoting a secret', () => {
    const refused = (value: unknown, extra: Record<string, string> = {}) => {
      const error = configError(() => providers(value, extra));
      expect(error.message).not.toContain('s3cret');
      return error;
    };
    const base = { kind: 'oidc', issuer: 'https://id.example.com', clientId: 'c', clientSecret: 's3cret', redirectOrigins: ['https://app.example.com'] };
    expect(refused({ x: { ...base, issuer: 'http://id.example.com' } }).message).toMatch(/issuer that is not https/);
    expect(refused({ x: { ...base, redirectOrigins: ['https://app.example.com/cb'] } }).message).toMatch(/origin alone/);
    expect(refused({ x: { ...base, redirectOrigins: [] } }).message).toMatch(/redirectOrigins/);
    expect(refused({ x: { ...base, scopes: ['email'] } }).message).toMatch(/openid/);
    expect(refused({ x: { ...base, clientSecret: 5 } }).message).toMatch(/clientSecret/);
    expect(refused({ Bad_Name: base }).message).toMatch(/lower-case/);
    expect(refused({ gh: { kind: 'github', clientId: 'c', redirectOrigins: ['https://app.example.com'], trustMfa: true } }).message).toMatch(/trustMfa/);
    expect(refused([base]).variable).toBe('PASSLANE_OAUTH_PROVIDERS');
    const noUrl = configError(() => readConfig({ PASSLANE_OAUTH_PROVIDERS: JSON.stringify({ x: base }) }));
    expect(noUrl.variable).toBe('PASSLANE_PUBLIC_URL');
  });
});

describe('the repository', () => {
  it('keeps local secrets and wrangler\'s state out of git', () => {
    const ignored = spawnSync('git', ['check-ignore', '--no-index', '.env', '.dev.vars', '.wrangler/state/v3/d1/db.sqlite', '.data/jwt-signing-key.json'], { cwd: root, encoding: 'utf8' });
    expect(ignored.stdout.trim().split('\n')).toEqual(['.env', '.dev.vars', '.wrangler/state/v3/d1/db.sqlite', '.data/jwt-signing-key.json']);
    // The example is meant to be committed.
    expect(spawnSync('git', ['check-ignore', '--no-index', '-q', '.dev.vars.example'], { cwd: root }).status).toBe(1);
  });
});

/** Every .ts file under the folders that make up the service. */
async function sources(): Promise<Array<{ path: string; text: string }>> {
  const files: Array<{ path: string; text: string }> = [];
  for (const folder of ['packages/passlane/src', 'packages/server/src', 'functions']) {
    for (const entry of await readdir(join(root, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const path = join(entry.parentPath, entry.name);
      files.push({ path: relative(root, path), text: await readFile(path, 'utf8') });
    }
  }
  return files;
}

describe('one configuration module, one reader per runtime, one wiring', () => {
  // Reading a variable by name (env.X, env?.X, env['X'], process.env.X) or the whole environment
  // (process.env, Deno.env, Bun.env). Comments are skipped.
  const READS_VARIABLE = /\b(?:env|process\.env)\??\.[A-Z][A-Z0-9_]*\b|\benv\[['"`]|\b(?:process|Deno|Bun)\??\.env\b/;
  // Setting a default for Powertools (which reads its own POWERTOOLS_* variables) is not a read.
  const SETS_DEFAULT = /process\.env\.[A-Z_]+ \?\?=/;
  // Each runtime's (and the CLI's) one read of its environment, handed to src/config's readers.
  // A Worker's bindings arrive as an argument, not from a global (worker-env.ts reads them).
  const RUNTIME_READERS = [
    'packages/server/src/runtimes/lambda/lambda-env.ts',
    'packages/server/src/runtimes/vercel-edge/vercel-edge.ts',
    'packages/server/src/runtimes/node/local-server.ts',
    'packages/server/src/runtimes/deno/deno.ts',
    'packages/server/src/runtimes/bun/bun.ts',
    'packages/server/src/cli/commands/command-io.ts',
  ];
  // Runtime detection (is this Lambda?) and the benchmark's description of the machine it
  // measures (memory size, region, thread pool): the platform, not passlane's configuration.
  const PLATFORM = (path: string) => path === 'packages/passlane/src/detect-runtime.ts' || path === 'functions/bench.ts' || path.startsWith('packages/server/src/cli/bench/');
  const ALLOWED = (path: string) => path.startsWith('packages/server/src/config/') || RUNTIME_READERS.includes(path) || PLATFORM(path);

  const reads = (text: string) =>
    text.split('\n').filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line) && READS_VARIABLE.test(line) && !SETS_DEFAULT.test(line));

  it('reads environment variables nowhere but the server\'s config and each runtime\'s one reader', async () => {
    const files = await sources();
    const offenders = files.filter(({ path }) => !ALLOWED(path)).flatMap(({ path, text }) => reads(text).map((line) => `${path}: ${line.trim()}`));
    expect(offenders).toEqual([]);
    // Each reader still reads (a renamed or emptied one would leave a stale entry here).
    expect(RUNTIME_READERS.filter((path) => !files.some((file) => file.path === path && reads(file.text).length > 0))).toEqual([]);
  });

  it('builds stores and token services only in the server\'s wiring and the runtimes\' own', async () => {
    const BUILDS = /new (AccountStore|RateLimitStore|JobCursorStore)\(|\b(tokenServiceFromConfig|publicTokenServiceFromConfig)\(/;
    // functions/ holds the Lambda runtime's entries (the JWKS ones build their token service themselves).
    const offenders = (await sources())
      .filter(({ path }) => !/^(packages\/server\/src\/(wiring|runtimes|features\/tokens)|functions)\//.test(path))
      .filter(({ text }) => text.split('\n').some((line) => !/^\s*(\*|\/\/)/.test(line) && BUILDS.test(line)))
      .map(({ path }) => path);
    expect(offenders).toEqual([]);
  });
});
