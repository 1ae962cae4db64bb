import { KeyObject, sign } from 'node:crypto';
import type { CreateJwsSigner } from './sign-jws.js';

/**
 * Node's signer: node:crypto, synchronous, on the calling thread. Web Crypto on Node queues each
 * signature to the thread pool and back, which costs more CPU than the RS256 signature itself
 * saves by leaving (0.44 against 0.28 CPU ms a token here; README, "Login CPU"). The key stays
 * the non-extractable CryptoKey's: KeyObject.from wraps it without exporting it.
 */
export const createNodeJwsSigner: CreateJwsSigner = (alg, privateKey) => {
  const key = KeyObject.from(privateKey);
  // EdDSA hashes inside the algorithm; ES256's signature in JWS is r || s, not DER.
  const digest = alg === 'EdDSA' ? null : 'sha256';
  return async (signingInput) => sign(digest, signingInput, { key, dsaEncoding: 'ieee-p1363' });
};
