import type { PublicJwk, PublicKeyring } from './keys.js';

/**
 * The JSON Web Key Set for `GET /.well-known/jwks.json`: the current key first, then previous
 * keys still accepted. Public parameters only (the keyring copied them member by member), and
 * fresh copies, so a caller editing the response cannot change the keyring.
 */
export interface PublicJwks {
  keys: PublicJwk[];
}

export function publicJwks(keyring: PublicKeyring): PublicJwks {
  return { keys: [...keyring.verificationKeys.values()].map((key) => ({ ...key.publicJwk })) };
}

/** How long clients and API Gateway's JWT authorizer may cache the keys; key rotation overlaps by longer than this. */
export const JWKS_MAX_AGE_SECONDS = 300;
