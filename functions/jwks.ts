/**
 * GET /.well-known/jwks.json: the public signing keys, cacheable. Needs no table or hasher, and
 * no private key when PASSLANE_JWT_PUBLIC_KEYS is set (as serverless.yml does).
 */
import { jwksRoute } from '../packages/server/src/features/tokens/jwks-route.js';
import { getPublicTokenService } from '../packages/server/src/runtimes/lambda/lambda-public-tokens.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([jwksRoute], { publicTokens: getPublicTokenService });
