/**
 * GET /.well-known/jwks.json: the public signing keys, cacheable. Needs no table or hasher, and
 * no private key when PASSLANE_JWT_PUBLIC_KEYS is set (as serverless.yml does).
 */
import { getPublicTokenService } from '../src/app/create-auth-dependencies.js';
import { createJwksHandler } from './create-handler.js';

export const handler = createJwksHandler(getPublicTokenService);
