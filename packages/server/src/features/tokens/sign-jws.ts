import { base64url, type CryptoKey, type JWK } from 'jose';
import type { SigningAlgorithm } from './settings.js';
import { utf8 } from 'passlane/encoding';

/** The signature of a JWS signing input (RFC 7515 §5.1) under one private key, in JWS form (RFC 7518 §3). */
export type JwsSigner = (signingInput: Uint8Array) => Promise<Uint8Array>;

/** The current signing key as validated (keys.ts): its JWK, and the same key imported into Web Crypto. */
export interface PrivateSigningKey {
  alg: SigningAlgorithm;
  privateJwk: JWK;
  privateKey: CryptoKey;
}

/**
 * How a host turns the private key into a signer: the one seam for signing, given by the host's
 * platform (Platform.jwsSigner). Web Crypto where none is given; node:crypto on Node
 * (node-jws-signer.ts). README.md here, "The signer", says why.
 */
export type CreateJwsSigner = (key: PrivateSigningKey) => JwsSigner;

const WEB_CRYPTO_PARAMS: Record<SigningAlgorithm, AlgorithmIdentifier | EcdsaParams> = {
  EdDSA: { name: 'Ed25519' },
  // Web Crypto's ECDSA signature is already r || s, the form JWS uses.
  ES256: { name: 'ECDSA', hash: 'SHA-256' },
  RS256: { name: 'RSASSA-PKCS1-v1_5' },
};

export const createWebCryptoJwsSigner: CreateJwsSigner = ({ alg, privateKey }) => {
  const params = WEB_CRYPTO_PARAMS[alg];
  return async (signingInput) => new Uint8Array(await crypto.subtle.sign(params, privateKey, signingInput as Uint8Array<ArrayBuffer>));
};

/**
 * RFC 7515's compact serialisation: BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature).
 * Written here rather than with jose's SignJWT because jose signs through Web Crypto only; jose
 * verifies every token (verify-access-token.ts), and the keyring checks at start that a token
 * signed here verifies there.
 */
export async function signCompactJws(header: Record<string, unknown>, payload: Record<string, unknown>, sign: JwsSigner): Promise<string> {
  const signingInput = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}`;
  return `${signingInput}.${base64url.encode(await sign(utf8(signingInput)))}`;
}
