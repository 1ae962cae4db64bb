/** GET /.well-known/jwks.json: the public signing keys, cacheable. Needs no table or hasher. */
import { getTokenService } from '../src/app/create-auth-dependencies.js';
import { createJwksHandler } from './create-handler.js';

export const handler = createJwksHandler(getTokenService);
