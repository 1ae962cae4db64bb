import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { base64url, compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, type JWK } from 'jose';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidTokenError, TokenConfigError } from '../packages/server/src/features/tokens/errors.js';
import { publicJwks } from '../packages/server/src/features/tokens/jwks.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { readTokenConfig } from '../packages/server/src/config/token-config.js';
import { createKeyring, generateSigningKey, keyringFromConfig, type Keyring, type SigningAlgorithm } from '../packages/server/src/features/tokens/keys.js';
import { LOCAL_SIGNING_KEY_FILE, loadOrCreateLocalSigningKey } from '../packages/server/src/features/tokens/local-signing-key.js';
import { createNodeJwsSigner } from '../packages/server/src/features/tokens/node-jws-signer.js';
import { createWebCryptoJwsSigner, signCompactJws } from '../packages/server/src/features/tokens/sign-jws.js';
import { createPublicTokenService, createTokenService, publicTokenServiceFromConfig, tokenServiceFromConfig, type TokenService } from '../packages/server/src/features/tokens/token-service.js';

const USER_ID = 'user-6f1c';

type Env = Record<string, string | undefined>;
// As the hosts build them: env through the configuration reader (src/config), then the service.
const withDataDir = (env: Env, dataDir?: string): Env => (dataDir === undefined ? env : { ...env, PASSLANE_DATA_DIR: dataDir });
const tokenServiceFromEnv = async (env: Env, options: { dataDir?: string } = {}) =>
  tokenServiceFromConfig(readTokenConfig(withDataDir(env, options.dataDir)));
const publicTokenServiceFromEnv = async (env: Env) => publicTokenServiceFromConfig(readTokenConfig(env));
const keyringFromEnv = async (env: Env) => {
  const { keys } = readTokenConfig(env);
  return keyringFromConfig(keys, keys.privateJwk!);
};
const PRIVATE_PARAMS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

let edKey: JWK;
let esKey: JWK;
let rsKey: JWK;
let edKeyring: Keyring;
let service: TokenService;
let tempDir: string;

beforeAll(async () => {
  [edKey, esKey, rsKey] = await Promise.all([generateSigningKey('EdDSA'), generateSigningKey('ES256'), generateSigningKey('RS256')]);
  edKeyring = await createKeyring(edKey);
  service = createTokenService({ keyring: edKeyring });
  tempDir = await mkdtemp(join(tmpdir(), 'passlane-tokens-'));
});

afterAll(async () => {
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

/** Asserts an InvalidTokenError with this reason whose message holds nothing from the token. */
async function expectRejected(promise: Promise<unknown>, reason: string, token?: string) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  expect(error).toMatchObject({ code: 'ERR_TOKEN_INVALID', reason });
  const message = (error as Error).message;
  expect(message).not.toContain(USER_ID);
  if (token) for (const part of token.split('.')) if (part) expect(message).not.toContain(part);
}

/**
 * Asserts a configuration error whose message holds none of the given secrets: a ConfigError
 * from reading a variable (src/config) or a TokenConfigError from checking a key (src/tokens).
 */
function expectConfigError(run: () => unknown, secrets: readonly unknown[] = []) {
  return Promise.resolve()
    .then(run)
    .then(
      () => expect.fail('expected a configuration error'),
      (error: unknown) => {
        expect(error instanceof TokenConfigError || error instanceof ConfigError, String(error)).toBe(true);
        expect((error as { code?: string }).code).toMatch(/^ERR_(TOKEN_)?CONFIG$/);
        expect((error as Error).cause).toBeUndefined();
        for (const secret of secrets) if (typeof secret === 'string') expect((error as Error).message).not.toContain(secret);
        return error as Error;
      },
    );
}

describe('issue and verify', () => {
  const SIGNERS = { 'Web Crypto': createWebCryptoJwsSigner, 'node:crypto': createNodeJwsSigner };
  const cases = (['EdDSA', 'ES256', 'RS256'] as const).flatMap((alg) => (['Web Crypto', 'node:crypto'] as const).map((signer) => [alg, signer] as const));

  it.each(cases)('round-trips a %s token signed with %s, with the expected claims', async (alg: SigningAlgorithm, signer) => {
    const keyring = await createKeyring(alg === 'EdDSA' ? edKey : alg === 'ES256' ? esKey : rsKey, [], { signer: SIGNERS[signer] });
    const tokens = createTokenService({ keyring });
    const now = new Date();
    const issued = await tokens.issue({ userId: USER_ID, now });
    expect(issued).toMatchObject({ tokenType: 'Bearer', expiresIn: 900 });

    expect(decodeProtectedHeader(issued.accessToken)).toEqual({ alg, kid: keyring.current.kid, typ: 'at+jwt' });
    const verified = await tokens.verify(issued.accessToken);
    expect(verified.userId).toBe(USER_ID);
    expect(verified.tokenId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(verified.issuedAt.getTime()).toBe(Math.floor(now.getTime() / 1000) * 1000);
    expect(verified.expiresAt.getTime() - verified.issuedAt.getTime()).toBe(900_000);
  });

  it('signs alike through node:crypto and Web Crypto: the same bytes where the algorithm is deterministic, and jose verifies both', async () => {
    for (const jwk of [edKey, esKey, rsKey]) {
      const { current } = await createKeyring(jwk);
      const signed = await Promise.all(
        [createNodeJwsSigner, createWebCryptoJwsSigner].map((create) => signCompactJws({ alg: current.alg }, { probe: 1 }, create({ alg: current.alg, privateJwk: jwk, privateKey: current.privateKey }))),
      );
      for (const jws of signed) await expect(compactVerify(jws, current.publicKey, { algorithms: [current.alg] })).resolves.toBeDefined();
      // ECDSA signs with a fresh nonce each time: equal lengths (r || s, 64 bytes), not equal bytes.
      if (current.alg === 'ES256') expect(signed.map((jws) => base64url.decode(jws.split('.')[2]!).length)).toEqual([64, 64]);
      else expect(signed[0]).toBe(signed[1]);
    }
  });

  it('refuses at start a signer whose signatures do not verify', async () => {
    const wrong = await createKeyring(await generateSigningKey('EdDSA'));
    const signer = () => createWebCryptoJwsSigner({ alg: 'EdDSA', privateJwk: edKey, privateKey: wrong.current.privateKey });
    await expectConfigError(() => createKeyring(edKey, [], { signer }), [edKey.d]);
  });

  it('gives every token its own jti', async () => {
    const [a, b] = await Promise.all([service.issue({ userId: USER_ID }), service.issue({ userId: USER_ID })]);
    const [va, vb] = await Promise.all([service.verify(a.accessToken), service.verify(b.accessToken)]);
    expect(va.tokenId).not.toBe(vb.tokenId);
  });

  it('verifies like an API Gateway JWT authorizer: the published JWKS, issuer and audience', async () => {
    const { accessToken } = await service.issue({ userId: USER_ID });
    // Through JSON, as the authorizer fetches it over HTTP.
    const jwks = createLocalJWKSet(JSON.parse(JSON.stringify(service.jwks())));
    const { payload, protectedHeader } = await jwtVerify(accessToken, jwks, { issuer: 'passlane', audience: 'passlane-api' });
    expect(payload).toMatchObject({ sub: USER_ID, iss: 'passlane', aud: 'passlane-api' });
    expect(protectedHeader.kid).toBe(edKeyring.current.kid);
  });

  it('rejects an expired token, but allows a few seconds of clock skew', async () => {
    const now = Date.now();
    const expired = await service.issue({ userId: USER_ID, now: new Date(now - 901_000 - 5_000) });
    await expectRejected(service.verify(expired.accessToken), 'expired', expired.accessToken);
    const justExpired = await service.issue({ userId: USER_ID, now: new Date(now - 903_000) });
    await expect(service.verify(justExpired.accessToken)).resolves.toMatchObject({ userId: USER_ID });
  });

  it('rejects a token issued in the future', async () => {
    const future = await service.issue({ userId: USER_ID, now: new Date(Date.now() + 60_000) });
    await expectRejected(service.verify(future.accessToken), 'claims');
  });

  it('rejects the wrong audience and the wrong issuer', async () => {
    const otherAudience = await createTokenService({ keyring: edKeyring, audience: 'another-api' }).issue({ userId: USER_ID });
    await expectRejected(service.verify(otherAudience.accessToken), 'claims', otherAudience.accessToken);
    const otherIssuer = await createTokenService({ keyring: edKeyring, issuer: 'https://evil.example' }).issue({ userId: USER_ID });
    await expectRejected(service.verify(otherIssuer.accessToken), 'claims', otherIssuer.accessToken);
  });

  it('rejects a token from a key that is not ours, and one that claims our kid', async () => {
    const stranger = createTokenService({ keyring: await createKeyring(await generateSigningKey('EdDSA')) });
    const foreign = await stranger.issue({ userId: USER_ID });
    await expectRejected(service.verify(foreign.accessToken), 'unknown-key', foreign.accessToken);

    const impostorKey = await generateSigningKey('EdDSA');
    const impostor = await createKeyring({ ...impostorKey, kid: edKeyring.current.kid });
    const forged = await createTokenService({ keyring: impostor }).issue({ userId: USER_ID });
    await expectRejected(service.verify(forged.accessToken), 'signature', forged.accessToken);
  });

  it('rejects alg "none" and HS256 signed with the public key', async () => {
    const { kid, publicJwk } = edKeyring.current;
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: 'passlane', aud: 'passlane-api', sub: USER_ID, iat: now, exp: now + 900, jti: crypto.randomUUID() };
    const encode = (value: object) => base64url.encode(JSON.stringify(value));

    const unsigned = `${encode({ alg: 'none', kid, typ: 'at+jwt' })}.${encode(claims)}.`;
    await expectRejected(service.verify(unsigned), 'algorithm', unsigned);

    for (const secret of [new TextEncoder().encode(JSON.stringify(publicJwk)), base64url.decode(publicJwk.x as string)]) {
      const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' }).sign(secret);
      await expectRejected(service.verify(hs256), 'algorithm', hs256);
    }

    // Another asymmetric algorithm under our kid: bound to EdDSA, so refused before any check.
    const es256 = await createKeyring({ ...esKey, kid });
    const crossAlg = await createTokenService({ keyring: es256 }).issue({ userId: USER_ID });
    await expectRejected(service.verify(crossAlg.accessToken), 'algorithm', crossAlg.accessToken);
  });

  it('rejects a tampered payload and garbage', async () => {
    const { accessToken } = await service.issue({ userId: USER_ID });
    const [header, payload, signature] = accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as Record<string, unknown>;
    const tampered = `${header}.${base64url.encode(JSON.stringify({ ...claims, sub: 'admin' }))}.${signature}`;
    await expectRejected(service.verify(tampered), 'signature', tampered);

    for (const garbage of ['', 'not-a-jwt', 'a.b.c', `${header}.${payload}`, 'x'.repeat(10_000)]) {
      await expectRejected(service.verify(garbage), 'malformed');
    }
    await expectRejected(service.verify(undefined as unknown as string), 'malformed');
  });
});

describe('OAuth claims (RFC 9068)', () => {
  it('carries client_id always, and scope only when configured, in the token and in what issue answers', async () => {
    const keyring = await createKeyring(edKey);
    const plain = await createTokenService({ keyring }).issue({ userId: USER_ID });
    expect(decodeJwt(plain.accessToken)).toMatchObject({ client_id: 'passlane' });
    expect(decodeJwt(plain.accessToken)).not.toHaveProperty('scope');
    expect(plain).not.toHaveProperty('scope');

    const scoped = createTokenService({ keyring, clientId: 'web-app', scopes: ['orders:read', 'profile', 'orders:read'] });
    const issued = await scoped.issue({ userId: USER_ID });
    expect(decodeJwt(issued.accessToken)).toMatchObject({ client_id: 'web-app', scope: 'orders:read profile' });
    expect(issued.scope).toBe('orders:read profile');
    expect(await scoped.verify(issued.accessToken)).toMatchObject({ userId: USER_ID, scopes: ['orders:read', 'profile'] });
  });

  it('refuses a token without the required scope, last (reason scope), and only a good token gets that far', async () => {
    const keyring = await createKeyring(edKey);
    const issuer = createTokenService({ keyring, scopes: ['profile'] });
    const requiring = (requiredScope: string) => createPublicTokenService({ keyring, requiredScope });
    const { accessToken } = await issuer.issue({ userId: USER_ID });
    await expect(requiring('profile').verify(accessToken)).resolves.toMatchObject({ userId: USER_ID });
    await expectRejected(requiring('orders:write').verify(accessToken), 'scope', accessToken);
    const unscoped = await createTokenService({ keyring }).issue({ userId: USER_ID });
    await expectRejected(requiring('profile').verify(unscoped.accessToken), 'scope', unscoped.accessToken);
    // An expired token is `expired`, not `scope`: the scope is looked at only on an otherwise good token.
    const expired = await issuer.issue({ userId: USER_ID, now: new Date(Date.now() - 1_000_000) });
    await expectRejected(requiring('orders:write').verify(expired.accessToken), 'expired', expired.accessToken);
  });

  it('refuses a client id or scopes OAuth could not carry', async () => {
    const keyring = await createKeyring(edKey);
    await expectConfigError(() => createTokenService({ keyring, clientId: ' ' }));
    await expectConfigError(() => createTokenService({ keyring, clientId: 'café' }));
    await expectConfigError(() => createTokenService({ keyring, scopes: ['two words'] }));
    await expectConfigError(() => createTokenService({ keyring, scopes: ['"quoted"'] }));
    await expectConfigError(() => createPublicTokenService({ keyring, requiredScope: '' }));
  });
});

describe('rotation', () => {
  it('accepts tokens from a previous key while it is listed, not after it is removed', async () => {
    const oldToken = await service.issue({ userId: USER_ID });
    const nextKey = await generateSigningKey('EdDSA');

    const rotated = createTokenService({ keyring: await createKeyring(nextKey, [edKeyring.current.publicJwk]) });
    await expect(rotated.verify(oldToken.accessToken)).resolves.toMatchObject({ userId: USER_ID });
    const newToken = await rotated.issue({ userId: USER_ID });
    expect(decodeProtectedHeader(newToken.accessToken).kid).toBe(nextKey.kid);
    expect(rotated.jwks().keys.map((key) => key.kid)).toEqual([nextKey.kid, edKeyring.current.kid]);

    const retired = createTokenService({ keyring: await createKeyring(nextKey) });
    await expectRejected(retired.verify(oldToken.accessToken), 'unknown-key', oldToken.accessToken);
    await expect(retired.verify(newToken.accessToken)).resolves.toMatchObject({ userId: USER_ID });
  });

  it('reads the previous keys from env, as a JSON array or a saved JWKS', async () => {
    const nextKey = await generateSigningKey('EdDSA');
    for (const previous of [[edKeyring.current.publicJwk], publicJwks(edKeyring)]) {
      const keyring = await keyringFromEnv({
        PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(nextKey),
        PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS: JSON.stringify(previous),
      });
      expect([...keyring.verificationKeys.keys()]).toEqual([nextKey.kid, edKeyring.current.kid]);
    }
  });
});

describe('JWKS', () => {
  it('publishes public keys only, each with kid, alg and use "sig"', async () => {
    const rsaKey = await generateSigningKey('RS256');
    const keyring = await createKeyring(rsaKey, [edKeyring.current.publicJwk, (await createKeyring(esKey)).current.publicJwk]);
    const jwks = publicJwks(keyring);
    expect(jwks.keys.map((key) => key.alg)).toEqual(['RS256', 'EdDSA', 'ES256']);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kid: expect.any(String), use: 'sig' });
      for (const param of PRIVATE_PARAMS) expect(key).not.toHaveProperty(param);
    }
    const text = JSON.stringify(jwks);
    for (const param of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(text).not.toContain(rsaKey[param as keyof JWK] as string);
  });

  it('hands out copies: editing the response does not change the keyring', () => {
    const jwks = service.jwks();
    (jwks.keys[0] as JWK).x = 'tampered';
    jwks.keys.push({ ...jwks.keys[0]!, kid: 'injected' });
    expect(service.jwks().keys).toEqual([edKeyring.current.publicJwk]);
  });
});

describe('key configuration from env', () => {
  const deploymentEnv = () => ({ PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(edKey) });

  it('builds the service from env: key, issuer, audience, TTL', async () => {
    const tokens = await tokenServiceFromEnv({
      ...deploymentEnv(),
      PASSLANE_JWT_ISSUER: 'https://auth.example.com',
      PASSLANE_JWT_AUDIENCE: 'example-api',
      PASSLANE_ACCESS_TOKEN_TTL_S: '300',
      AWS_LAMBDA_FUNCTION_NAME: 'passlane-login', // a configured key is fine on Lambda
    });
    const issued = await tokens.issue({ userId: USER_ID });
    expect(issued.expiresIn).toBe(300);
    const { payload } = await jwtVerify(issued.accessToken, createLocalJWKSet(tokens.jwks()), {
      issuer: 'https://auth.example.com',
      audience: 'example-api',
    });
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(tokens.jwks().keys[0]?.kid).toBe(edKey.kid);
  });

  it('takes the kid from PASSLANE_JWT_KEY_ID when the JWK has none', async () => {
    const { kid: _kid, ...withoutKid } = edKey;
    const keyring = await keyringFromEnv({ PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(withoutKid), PASSLANE_JWT_KEY_ID: 'key-2026-01' });
    expect(keyring.current.kid).toBe('key-2026-01');
    await expectConfigError(() => keyringFromEnv({ PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(withoutKid) }), [edKey.d]);
    await expectConfigError(() => keyringFromEnv({ ...deploymentEnv(), PASSLANE_JWT_KEY_ID: 'other' }), [edKey.d]);
  });

  it('rejects bad key settings without quoting any key material', async () => {
    const secret = edKey.d!;
    const otherKey = await generateSigningKey('EdDSA');
    const { alg: _alg, ...withoutAlg } = edKey;
    const cases: Record<string, Record<string, string>> = {
      'not JSON': { PASSLANE_JWT_PRIVATE_KEY: `{"d":"${secret}",` },
      'not an object': { PASSLANE_JWT_PRIVATE_KEY: JSON.stringify([edKey]) },
      'no alg': { PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(withoutAlg) },
      'unsupported alg': { PASSLANE_JWT_PRIVATE_KEY: JSON.stringify({ ...edKey, alg: 'HS256' }) },
      'alg/kty mismatch': { PASSLANE_JWT_PRIVATE_KEY: JSON.stringify({ ...edKey, alg: 'ES256' }) },
      'public key only': { PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(edKeyring.current.publicJwk) },
      'use enc': { PASSLANE_JWT_PRIVATE_KEY: JSON.stringify({ ...edKey, use: 'enc' }) },
      'halves of two keys': { PASSLANE_JWT_PRIVATE_KEY: JSON.stringify({ ...edKey, x: otherKey.x }) },
      'garbage d': { PASSLANE_JWT_PRIVATE_KEY: JSON.stringify({ ...edKey, d: `${secret.slice(0, 10)}!!` }) },
      'PASSLANE_JWT_ALG mismatch': { ...deploymentEnv(), PASSLANE_JWT_ALG: 'ES256' },
      'PASSLANE_JWT_ALG unknown': { ...deploymentEnv(), PASSLANE_JWT_ALG: 'none' },
      'previous not JSON': { ...deploymentEnv(), PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS: `[${secret}` },
      'previous not an array': { ...deploymentEnv(), PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS: JSON.stringify(edKeyring.current.publicJwk) },
      'previous key is private': { ...deploymentEnv(), PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS: JSON.stringify([{ ...otherKey, d: secret }]) },
      'previous key repeats kid': { ...deploymentEnv(), PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS: JSON.stringify([edKeyring.current.publicJwk]) },
      'previous key without kid': {
        ...deploymentEnv(),
        PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS: JSON.stringify([{ kty: 'OKP', crv: 'Ed25519', x: otherKey.x, alg: 'EdDSA' }]),
      },
    };
    for (const [name, env] of Object.entries(cases)) {
      // Key-bearing values (not short settings like PASSLANE_JWT_ALG, which may be named).
      const keyText = Object.values(env).filter((value) => value.length > 16);
      const error = await expectConfigError(() => tokenServiceFromEnv(env, { dataDir: join(tempDir, 'never') }), [secret, ...keyText]);
      expect(error.message, name).toMatch(/PASSLANE_JWT_/);
    }
    expect(await readdir(tempDir)).not.toContain('never');
  });

  it('rejects RSA keys under 2048 bits', async () => {
    const rsa = await generateSigningKey('RS256');
    await expectConfigError(() => createKeyring({ ...rsa, n: (rsa.n as string).slice(0, 170) }), [rsa.d]);
  });

  it('bounds the TTL and requires whole seconds', async () => {
    expect(readTokenConfig({})).toMatchObject({ issuer: 'passlane', audience: 'passlane-api', ttlSeconds: 900 });
    expect(readTokenConfig({ PASSLANE_ACCESS_TOKEN_TTL_S: '60' }).ttlSeconds).toBe(60);
    expect(readTokenConfig({ PASSLANE_ACCESS_TOKEN_TTL_S: '86400' }).ttlSeconds).toBe(86_400);
    for (const ttl of ['59', '86401', '900.5', '-900', '15m', '1e3']) {
      const error = await expectConfigError(() => readTokenConfig({ PASSLANE_ACCESS_TOKEN_TTL_S: ttl }));
      expect(error.message).toContain('PASSLANE_ACCESS_TOKEN_TTL_S');
    }
    await expectConfigError(() => createTokenService({ keyring: edKeyring, ttlSeconds: 0 }));
    await expectConfigError(() => createTokenService({ keyring: edKeyring, issuer: ' ' }));
  });
});

describe('public keys only (PASSLANE_JWT_PUBLIC_KEYS)', () => {
  const publicEnv = () => ({ PASSLANE_JWT_PUBLIC_KEYS: JSON.stringify(publicJwks(edKeyring)), AWS_LAMBDA_FUNCTION_NAME: 'passlane-jwks' });

  it('publishes and verifies from the public keys, with no private key, even on Lambda', async () => {
    const nextKey = (await createKeyring(await generateSigningKey('EdDSA'))).current.publicJwk;
    const published = await publicTokenServiceFromEnv({
      ...publicEnv(),
      PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS: JSON.stringify([nextKey]),
      PASSLANE_JWT_ISSUER: 'https://auth.example.com',
    });
    expect(published.jwks()).toEqual({ keys: [edKeyring.current.publicJwk, nextKey] });
    expect(published.issuer).toBe('https://auth.example.com');
    expect(published).not.toHaveProperty('issue');
    const signer = createTokenService({ keyring: edKeyring, issuer: 'https://auth.example.com' });
    const { accessToken } = await signer.issue({ userId: USER_ID });
    await expect(published.verify(accessToken)).resolves.toMatchObject({ userId: USER_ID });
    // Without it, the same function would need the private key: on Lambda that is a config error.
    await expectConfigError(() => publicTokenServiceFromEnv({ AWS_LAMBDA_FUNCTION_NAME: 'passlane-jwks' }));
  });

  it('falls back to the full service when unset, as local runs do', async () => {
    const published = await publicTokenServiceFromEnv({ PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(edKey) });
    expect(published.jwks()).toEqual(publicJwks(edKeyring));
  });

  it('makes the signing functions refuse a key that is not the first published one', async () => {
    const otherKey = await generateSigningKey('EdDSA');
    const signing = await tokenServiceFromEnv({ ...publicEnv(), PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(edKey) });
    expect(signing.jwks()).toEqual(publicJwks(edKeyring));
    // Keys listed after the first are accepted like previous keys.
    const rotating = await tokenServiceFromEnv({
      PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(otherKey),
      PASSLANE_JWT_PUBLIC_KEYS: JSON.stringify([(await createKeyring(otherKey)).current.publicJwk, edKeyring.current.publicJwk]),
    });
    await expect(rotating.verify((await service.issue({ userId: USER_ID })).accessToken)).resolves.toMatchObject({ userId: USER_ID });

    const error = await expectConfigError(
      () => tokenServiceFromEnv({ ...publicEnv(), PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(otherKey) }),
      [otherKey.d, edKey.x],
    );
    expect(error.message).toContain('PASSLANE_JWT_PUBLIC_KEYS[0]');
  });

  it('rejects a private key, an empty list or a repeated kid among the public keys', async () => {
    const secret = edKey.d!;
    for (const value of [JSON.stringify([edKey]), JSON.stringify({ keys: [] }), JSON.stringify([edKeyring.current.publicJwk, edKeyring.current.publicJwk]), `[${secret}`]) {
      const error = await expectConfigError(() => publicTokenServiceFromEnv({ PASSLANE_JWT_PUBLIC_KEYS: value }), [secret]);
      expect(error.message).toContain('PASSLANE_JWT_PUBLIC_KEYS');
    }
    await expectConfigError(() => publicTokenServiceFromEnv({ ...publicEnv(), PASSLANE_JWT_ALG: 'RS256' }));
  });
});

describe('local signing key', () => {
  it('is generated once with mode 0600 and reused on restart', async () => {
    const dataDir = join(tempDir, 'data');
    const first = await tokenServiceFromEnv({}, { dataDir });
    const file = join(dataDir, LOCAL_SIGNING_KEY_FILE);
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(file, 'utf8')) as JWK;
    expect(saved).toMatchObject({ kty: 'RSA', alg: 'RS256', kid: first.jwks().keys[0]?.kid, d: expect.any(String) });
    expect((await readdir(dataDir)).sort()).toEqual([LOCAL_SIGNING_KEY_FILE]); // no temp files left

    const token = await first.issue({ userId: USER_ID });
    const restarted = await tokenServiceFromEnv({ PASSLANE_DATA_DIR: dataDir });
    expect(restarted.jwks()).toEqual(first.jwks());
    await expect(restarted.verify(token.accessToken)).resolves.toMatchObject({ userId: USER_ID });
  });

  it('makes ES256 keys on request, and refuses to swap the algorithm of an existing key', async () => {
    const dataDir = join(tempDir, 'es256');
    const tokens = await tokenServiceFromEnv({ PASSLANE_JWT_ALG: 'ES256' }, { dataDir });
    expect(tokens.jwks().keys[0]).toMatchObject({ kty: 'EC', alg: 'ES256' });
    await expectConfigError(() => tokenServiceFromEnv({ PASSLANE_JWT_ALG: 'EdDSA' }, { dataDir }));
  });

  it('agrees on one key when two processes start at once', async () => {
    const dataDir = join(tempDir, 'race');
    const results = await Promise.all(Array.from({ length: 4 }, () => loadOrCreateLocalSigningKey(dataDir)));
    expect(new Set(results.map((result) => result.privateJwk.kid)).size).toBe(1);
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(await readdir(dataDir)).toEqual([LOCAL_SIGNING_KEY_FILE]);
  });

  it.skipIf(process.platform === 'win32')('tightens a key file readable by others back to 0600', async () => {
    const dataDir = join(tempDir, 'loose');
    const { path } = await loadOrCreateLocalSigningKey(dataDir);
    await chmod(path, 0o644);
    await loadOrCreateLocalSigningKey(dataDir);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('reports a corrupt key file instead of replacing it', async () => {
    const dataDir = join(tempDir, 'corrupt');
    const { path } = await loadOrCreateLocalSigningKey(dataDir);
    await writeFile(path, '{"d":"half-written');
    const error = await expectConfigError(() => tokenServiceFromEnv({}, { dataDir }), ['half-written']);
    expect(error.message).toContain('delete it');
    expect(await readFile(path, 'utf8')).toBe('{"d":"half-written');
  });

  it('refuses to generate a key on Lambda', async () => {
    const dataDir = join(tempDir, 'lambda');
    for (const env of [{ AWS_LAMBDA_FUNCTION_NAME: 'passlane-login' }, { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' }]) {
      const error = await expectConfigError(() => tokenServiceFromEnv(env, { dataDir }));
      expect(error.message).toMatch(/PASSLANE_JWT_PRIVATE_KEY is not set.*Lambda/);
    }
    await expect(stat(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('edge runtimes', () => {
  // A Worker that drives the token code inside workerd: its own Web Crypto, no node: modules.
  const workerSource = `
    import { generateSigningKey } from './packages/server/src/features/tokens/keys.ts';
    import { readTokenConfig } from './packages/server/src/config/token-config.ts';
    import { tokenServiceFromConfig } from './packages/server/src/features/tokens/token-service.ts';
    const tokenServiceFromEnv = async (env) => tokenServiceFromConfig(readTokenConfig(env));
    export default {
      async fetch(request, env) {
        const results = {};
        for (const alg of ['EdDSA', 'ES256']) {
          const tokens = await tokenServiceFromEnv({ PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(await generateSigningKey(alg)) });
          const { accessToken } = await tokens.issue({ userId: 'u1' });
          results[alg] = { verified: (await tokens.verify(accessToken)).userId, jwks: tokens.jwks() };
        }
        const configured = await tokenServiceFromEnv(env);
        results.configured = await configured.verify(await request.text());
        results.noKey = await tokenServiceFromEnv({}).then(() => 'accepted', (error) => error.code + ': ' + error.message);
        return Response.json(results);
      },
    };`;
  const rejectNode: Plugin = {
    name: 'reject-node',
    setup: (pluginBuild) =>
      pluginBuild.onResolve({ filter: /^node:/ }, (args) => ({ errors: [{ text: `${args.path} imported by ${args.importer}` }] })),
  };
  let script: string;

  beforeAll(async () => {
    const result = await build({
      stdin: { contents: workerSource, resolveDir: fileURLToPath(new URL('..', import.meta.url)), loader: 'ts' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      conditions: ['passlane-source', 'workerd', 'worker', 'browser'],
      plugins: [rejectNode],
      logLevel: 'silent',
    });
    script = result.outputFiles[0]!.text;
  });

  it('bundles for Workers without any node: module, and runs in workerd', async () => {
    expect(script).not.toMatch(/from\s*["']node:/);
    const miniflare = new Miniflare({
      modules: true,
      script,
      compatibilityDate: '2025-01-01',
      bindings: { PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(edKey) },
    });
    try {
      const { accessToken } = await service.issue({ userId: USER_ID });
      const response = await miniflare.dispatchFetch('http://worker.test/', { method: 'POST', body: accessToken });
      const body = (await response.json()) as Record<string, { verified?: string; userId?: string } | string>;
      expect(body.EdDSA).toMatchObject({ verified: 'u1' });
      expect(body.ES256).toMatchObject({ verified: 'u1' });
      expect(body.configured).toMatchObject({ userId: USER_ID }); // a Node-issued token verifies in workerd
      expect(body.noKey).toMatch(/^ERR_TOKEN_CONFIG: .*workerd has no filesystem/);
    } finally {
      await miniflare.dispose();
    }
  });
});

describe('discovery settings', () => {
  it('reads PASSLANE_PUBLIC_URL and PASSLANE_DISCOVERY_TRUST_HOST, refusing what is not an http(s) URL or a boolean', async () => {
    expect(readTokenConfig({ PASSLANE_PUBLIC_URL: 'https://auth.example.com' })).toMatchObject({ publicUrl: 'https://auth.example.com', trustHostHeader: false });
    expect(readTokenConfig({ PASSLANE_DISCOVERY_TRUST_HOST: 'true' }).trustHostHeader).toBe(true);
    await expectConfigError(() => readTokenConfig({ PASSLANE_PUBLIC_URL: 'javascript:alert(1)' }));
    await expectConfigError(() => readTokenConfig({ PASSLANE_DISCOVERY_TRUST_HOST: 'yes' }));
  });
});
