import {
  calculateJwkThumbprint,
  compactVerify,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose';
import { SIGNING_ALGORITHMS, type SigningAlgorithm, type SigningKeyConfig } from './settings.js';
import { TokenConfigError } from './errors.js';
import { createWebCryptoJwsSigner, signCompactJws, type CreateJwsSigner, type JwsSigner } from './sign-jws.js';

export { SIGNING_ALGORITHMS, type SigningAlgorithm, type SigningKeyConfig };

/**
 * Signing keys as JWKs, validated and imported once into a keyring: the current signing key plus
 * every key tokens may still be verified with (the current one first, then previous ones during a
 * rotation). Keys are imported with jose into Web Crypto, so this runs on Node, Lambda and
 * Workers alike; each host may bring its own signer for the current key (sign-jws.ts).
 */

// RS256: the only family API Gateway's HTTP API JWT authorizer accepts (see README.md here).
export const DEFAULT_SIGNING_ALGORITHM: SigningAlgorithm = 'RS256';

/** What a verifier needs: published as-is in the JWKS. */
export interface PublicJwk extends JWK {
  kty: string;
  kid: string;
  alg: SigningAlgorithm;
  use: 'sig';
}

export interface VerificationKey {
  readonly kid: string;
  /** Each key verifies with exactly its own algorithm (RFC 8725 §3.1): no algorithm confusion. */
  readonly alg: SigningAlgorithm;
  readonly publicKey: CryptoKey;
  readonly publicJwk: PublicJwk;
}

export interface SigningKey extends VerificationKey {
  readonly privateKey: CryptoKey;
  /** Signs with privateKey, in the host's way (sign-jws.ts). */
  readonly sign: JwsSigner;
}

export interface SigningKeyOptions {
  /** The algorithm the key must have (PASSLANE_JWT_ALG). */
  algorithm?: SigningAlgorithm;
  /** What errors call the private key: its variable or file. */
  label?: string;
  /** How this host signs (Platform.jwsSigner); Web Crypto when not given. */
  signer?: CreateJwsSigner;
}

/** What verifying and publishing need: public keys only, so a holder of it can never sign. */
export interface PublicKeyring {
  /** By kid; iteration order is the current key, then previous keys as configured. */
  readonly verificationKeys: ReadonlyMap<string, VerificationKey>;
}

export interface Keyring extends PublicKeyring {
  readonly current: SigningKey;
}

const KID = /^[A-Za-z0-9._-]{1,128}$/;
const KEY_TYPES: Record<SigningAlgorithm, { kty: string; crv?: string; publicParams: readonly string[] }> = {
  EdDSA: { kty: 'OKP', crv: 'Ed25519', publicParams: ['crv', 'x'] },
  ES256: { kty: 'EC', crv: 'P-256', publicParams: ['crv', 'x', 'y'] },
  RS256: { kty: 'RSA', publicParams: ['n', 'e'] },
};
const PRIVATE_PARAMS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const MIN_RSA_MODULUS_BYTES = 256;
const PUBLIC_KEYS = 'PASSLANE_JWT_PUBLIC_KEYS';
const PREVIOUS_KEYS = 'PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS';

export function isSigningAlgorithm(value: unknown): value is SigningAlgorithm {
  return typeof value === 'string' && (SIGNING_ALGORITHMS as readonly string[]).includes(value);
}

/** A fresh private JWK with `kid` (its RFC 7638 thumbprint), `alg` and `use`. */
export async function generateSigningKey(alg: SigningAlgorithm = DEFAULT_SIGNING_ALGORITHM): Promise<JWK> {
  if (!isSigningAlgorithm(alg)) throw new TokenConfigError(`unsupported signing algorithm; use one of ${SIGNING_ALGORITHMS.join(', ')}`);
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  // The thumbprint covers only the required public members, so it is stable and reveals nothing.
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, kid, alg, use: 'sig' };
}

/**
 * The signing keyring for `privateJwk` (from env, or locally the key file, named by `label`) with
 * the configured public keys. With PASSLANE_JWT_PUBLIC_KEYS set, its first key must be this key's
 * public half: the JWKS functions publish that list without seeing the private key, so a rotation
 * that changed one and not the other would publish a key nobody signs with. That fails here, when
 * login starts, rather than at every API Gateway authorizer. Its other keys verify like previous keys.
 */
export async function keyringFromConfig(
  config: SigningKeyConfig,
  privateJwk: JWK,
  options: Pick<SigningKeyOptions, 'label' | 'signer'> = {},
): Promise<Keyring> {
  const [published, ...alsoPublished] = config.publicJwks ?? [];
  const others = [...labelled(alsoPublished, PUBLIC_KEYS, 1), ...labelled(config.previousPublicJwks, PREVIOUS_KEYS)];
  const keyring = await signingKeyring(privateJwk, others, { ...options, algorithm: config.algorithm });
  if (published !== undefined) {
    const first = checkJwk(published, `${PUBLIC_KEYS}[0]`, 'public');
    // publicParts builds both the same way, member by member, so equal keys serialise equally.
    if (JSON.stringify(first.publicJwk) !== JSON.stringify(keyring.current.publicJwk)) {
      throw new TokenConfigError(
        `${PUBLIC_KEYS}[0] (kid "${first.kid}") is not the public half of the signing key (kid "${keyring.current.kid}"); derive it again from the private key`,
      );
    }
  }
  return keyring;
}

/**
 * The published keys alone (PASSLANE_JWT_PUBLIC_KEYS, then PASSLANE_JWT_PREVIOUS_PUBLIC_KEYS):
 * enough to verify tokens and serve the JWKS, never to sign one.
 */
export async function publicKeyringFromConfig(config: SigningKeyConfig): Promise<PublicKeyring> {
  if (config.publicJwks === undefined) throw new TokenConfigError(`${PUBLIC_KEYS} is not set`);
  const verificationKeys = new Map<string, VerificationKey>();
  await addPublicKeys(verificationKeys, [...labelled(config.publicJwks, PUBLIC_KEYS), ...labelled(config.previousPublicJwks, PREVIOUS_KEYS)]);
  const current = verificationKeys.values().next().value!;
  if (config.algorithm !== undefined && current.alg !== config.algorithm) {
    throw new TokenConfigError(`${PUBLIC_KEYS}[0] has alg ${current.alg} but PASSLANE_JWT_ALG is ${config.algorithm}`);
  }
  return { verificationKeys };
}

/**
 * Validates and imports the keys. Throws TokenConfigError naming the key (by kid or position),
 * never its parameters. The current key signs and verifies a probe first, so a private key that
 * does not match its public half fails here, at startup, not on every login.
 */
export async function createKeyring(privateJwk: JWK, previousPublicJwks: readonly JWK[] = [], options: SigningKeyOptions = {}): Promise<Keyring> {
  return signingKeyring(privateJwk, labelled(previousPublicJwks, PREVIOUS_KEYS), options);
}

async function signingKeyring(privateJwk: JWK, others: readonly LabelledJwk[], options: SigningKeyOptions): Promise<Keyring> {
  const label = options.label ?? 'PASSLANE_JWT_PRIVATE_KEY';
  const current = checkJwk(privateJwk, label, 'private');
  if (options.algorithm !== undefined && current.alg !== options.algorithm) {
    throw new TokenConfigError(`${label} has alg ${current.alg} but PASSLANE_JWT_ALG is ${options.algorithm}`);
  }
  const privateKey = await importKey(privateJwk, current, label);
  const sign = (options.signer ?? createWebCryptoJwsSigner)({ alg: current.alg, privateJwk, privateKey });
  const signing: SigningKey = { ...(await importPublic(current, label)), privateKey, sign };
  await assertKeyPairMatches(signing, label);

  const verificationKeys = new Map<string, VerificationKey>([[signing.kid, signing]]);
  await addPublicKeys(verificationKeys, others);
  return { current: signing, verificationKeys };
}

/** A key with the name errors give it: the variable and its position there. */
interface LabelledJwk {
  jwk: unknown;
  label: string;
}

function labelled(jwks: readonly JWK[], variable: string, firstIndex = 0): LabelledJwk[] {
  return jwks.map((jwk, index) => ({ jwk, label: `${variable}[${index + firstIndex}]` }));
}

async function addPublicKeys(keys: Map<string, VerificationKey>, jwks: readonly LabelledJwk[]): Promise<void> {
  for (const { jwk, label } of jwks) {
    const checked = checkJwk(jwk, label, 'public');
    if (keys.has(checked.kid)) throw new TokenConfigError(`${label} repeats kid "${checked.kid}"`);
    keys.set(checked.kid, await importPublic(checked, label));
  }
}

interface CheckedJwk {
  kid: string;
  alg: SigningAlgorithm;
  publicJwk: PublicJwk;
}

function checkJwk(jwk: unknown, label: string, kind: 'private' | 'public'): CheckedJwk {
  if (!isObject(jwk)) throw new TokenConfigError(`${label} must be a JWK (a JSON object)`);
  if (typeof jwk.kid !== 'string' || !KID.test(jwk.kid)) {
    throw new TokenConfigError(`${label} needs a "kid" of 1-128 characters from [A-Za-z0-9._-]`);
  }
  const where = `${label} (kid "${jwk.kid}")`;
  if (!isSigningAlgorithm(jwk.alg)) throw new TokenConfigError(`${where} needs "alg": one of ${SIGNING_ALGORITHMS.join(', ')}`);
  const { kty, crv } = KEY_TYPES[jwk.alg];
  if (jwk.kty !== kty || (crv !== undefined && jwk.crv !== crv)) {
    throw new TokenConfigError(`${where}: alg ${jwk.alg} needs kty ${kty}${crv ? ` and crv ${crv}` : ''}`);
  }
  if (jwk.use !== undefined && jwk.use !== 'sig') throw new TokenConfigError(`${where}: "use" must be "sig"`);
  const op = kind === 'private' ? 'sign' : 'verify';
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes(op))) {
    throw new TokenConfigError(`${where}: "key_ops" must include "${op}"`);
  }
  const hasPrivateParams = PRIVATE_PARAMS.some((param) => jwk[param] !== undefined);
  if (kind === 'private' && typeof jwk.d !== 'string') throw new TokenConfigError(`${where} is not a private key (no "d")`);
  // A private key pasted into the public list is a leak waiting to happen: refuse, don't strip.
  if (kind === 'public' && hasPrivateParams) throw new TokenConfigError(`${where} contains private key parameters; list public keys only`);
  if (jwk.alg === 'RS256' && base64urlLength(jwk.n) < MIN_RSA_MODULUS_BYTES) {
    throw new TokenConfigError(`${where}: RSA keys must be at least 2048 bits`);
  }
  return { kid: jwk.kid, alg: jwk.alg, publicJwk: publicParts(jwk, jwk.kid, jwk.alg, where) };
}

/** Only the named public parameters are copied, so no private part can slip into the JWKS. */
function publicParts(jwk: JsonObject, kid: string, alg: SigningAlgorithm, where: string): PublicJwk {
  const { kty, publicParams } = KEY_TYPES[alg];
  const params: Record<string, string> = {};
  for (const param of publicParams) {
    const value = jwk[param];
    if (typeof value !== 'string' || value === '') throw new TokenConfigError(`${where} needs "${param}"`);
    params[param] = value;
  }
  return { kty, ...params, kid, alg, use: 'sig' };
}

async function importPublic(checked: CheckedJwk, label: string): Promise<VerificationKey> {
  const publicKey = await importKey(checked.publicJwk, checked, label);
  return { kid: checked.kid, alg: checked.alg, publicKey, publicJwk: checked.publicJwk };
}

async function importKey(jwk: JWK, checked: CheckedJwk, label: string): Promise<CryptoKey> {
  try {
    // Not extractable: nothing holding the keyring can export the private key later.
    const key = await importJWK(jwk, checked.alg, { extractable: false });
    if (key instanceof Uint8Array) throw new TypeError('symmetric key');
    return key;
  } catch (error) {
    throw new TokenConfigError(`${label} (kid "${checked.kid}") is not a valid ${checked.alg} key (${errorName(error)})`);
  }
}

/** The probe goes through the host's signer and jose's verify: what tokens will go through. */
async function assertKeyPairMatches(key: SigningKey, label: string): Promise<void> {
  try {
    const jws = await signCompactJws({ alg: key.alg }, { probe: 'passlane key check' }, key.sign);
    await compactVerify(jws, key.publicKey, { algorithms: [key.alg] });
  } catch (error) {
    throw new TokenConfigError(`${label} (kid "${key.kid}"): private key does not match its public parameters (${errorName(error)})`);
  }
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function base64urlLength(value: unknown): number {
  return typeof value === 'string' ? Math.floor((value.replace(/=+$/, '').length * 3) / 4) : 0;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'error';
}
