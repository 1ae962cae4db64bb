import * as v from 'valibot';
import { SIGNING_ALGORITHMS } from './settings.js';

/** A published key (jwks.ts): never private parameters. */
export const Jwk = v.pipe(
  v.object({
    kty: v.picklist(['OKP', 'EC', 'RSA']),
    kid: v.string(),
    alg: v.picklist(SIGNING_ALGORITHMS),
    use: v.literal('sig'),
    crv: v.optional(v.string()),
    x: v.optional(v.string()),
    y: v.optional(v.string()),
    n: v.optional(v.string()),
    e: v.optional(v.string()),
  }),
  v.description('A public key; never contains private parameters.'),
);

/** GET /.well-known/jwks.json's answer: the current key first. */
export const Jwks = v.object({
  keys: v.pipe(v.array(Jwk), v.minLength(1)),
});

/** GET /.well-known/openid-configuration's answer (openid-configuration.ts). */
export const OpenIdConfiguration = v.object({
  issuer: v.string(),
  jwks_uri: v.pipe(v.string(), v.url()),
  id_token_signing_alg_values_supported: v.array(v.string()),
  subject_types_supported: v.optional(v.array(v.string())),
  response_types_supported: v.optional(v.array(v.string())),
});
