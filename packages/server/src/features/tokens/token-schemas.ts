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

/**
 * GET /.well-known/oauth-authorization-server's answer (RFC 8414) and GET
 * /.well-known/openid-configuration's, the same document (authorization-server-metadata.ts).
 */
export const AuthorizationServerMetadata = v.pipe(
  v.strictObject({
    issuer: v.pipe(v.string(), v.description('The `iss` of every access token; discovery starts from it.')),
    token_endpoint: v.pipe(v.string(), v.url(), v.description('`POST /token`: the refresh grant.')),
    jwks_uri: v.pipe(v.string(), v.url(), v.description('`GET /.well-known/jwks.json`: the keys access tokens are signed with.')),
    grant_types_supported: v.pipe(v.array(v.literal('refresh_token')), v.minLength(1), v.description('`["refresh_token"]`: tokens are first issued by `POST /login`.')),
    token_endpoint_auth_methods_supported: v.pipe(v.array(v.literal('none')), v.minLength(1), v.description('`["none"]`: public clients, no client authentication.')),
  }),
  v.description('What exists and nothing else: no authorization endpoint, no ID tokens, no response types.'),
);
