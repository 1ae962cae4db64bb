import { createPrivateKey, sign } from 'node:crypto';
import type { CreateJwsSigner } from './sign-jws.js';

/**
 * Node's signer (Platform.jwsSigner on the Node hosts): node:crypto, synchronous, on the calling
 * thread, where Web Crypto would queue each signature to the thread pool and back (README.md
 * here, "The signer"). Imported from the JWK, not converted from the CryptoKey: Node deprecates
 * KeyObject.from on a non-extractable key (DEP0204). A KeyObject can be exported by whoever holds
 * it, so it stays in this closure: the keyring exposes the signing function and the
 * non-extractable CryptoKey, never the KeyObject.
 */
export const createNodeJwsSigner: CreateJwsSigner = ({ alg, privateJwk }) => {
  const key = createPrivateKey({ key: privateJwk, format: 'jwk' });
  // EdDSA hashes inside the algorithm; ES256's signature in JWS is r || s, not DER.
  const digest = alg === 'EdDSA' ? null : 'sha256';
  return async (signingInput) => sign(digest, signingInput, { key, dsaEncoding: 'ieee-p1363' });
};
