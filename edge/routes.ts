import { bearerToken } from '../src/http/bearer-token.js';
import { jsonResponse, noContent } from '../src/http/responses.js';
import { JWKS_MAX_AGE_SECONDS } from '../src/tokens/jwks.js';
import { openIdConfiguration } from '../src/tokens/openid-configuration.js';
import { changePassword } from '../src/use-cases/change-password.js';
import { login } from '../src/use-cases/login.js';
import { register } from '../src/use-cases/register.js';
import type { PublicTokenService } from '../src/tokens/token-service.js';
import type { EdgeDependencies } from './edge-dependencies.js';
import { readJsonBody } from './read-json-body.js';
import { toFetchResponse } from './responses.js';

/** What a route gets: the request, and the isolate's dependencies (or only its public keys) on demand. */
export interface RouteContext {
  request: Request;
  deps: () => Promise<EdgeDependencies>;
  publicTokens: () => Promise<PublicTokenService>;
}

export type RouteHandler = (context: RouteContext) => Promise<Response>;

/** As functions/create-handler.ts (not importable here: it loads middy and Powertools). */
const publicCache = { 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` };

/** Cloudflare sets it on every request from the internet; the Worker is not reached any other way. */
function sourceIp(request: Request): string | undefined {
  return request.headers.get('cf-connecting-ip') ?? undefined;
}

/** Path -> method -> handler: the same routes and bodies as the Lambda functions. */
export const ROUTES: Readonly<Record<string, Readonly<Record<string, RouteHandler>>>> = {
  '/register': {
    POST: async ({ request, deps }) => {
      const body = await readJsonBody(request);
      return toFetchResponse(jsonResponse(201, await register(await deps(), { body, sourceIp: sourceIp(request) })));
    },
  },
  '/login': {
    POST: async ({ request, deps }) => {
      const body = await readJsonBody(request);
      return toFetchResponse(jsonResponse(200, await login(await deps(), { body, sourceIp: sourceIp(request) })));
    },
  },
  '/password': {
    POST: async ({ request, deps }) => {
      const body = await readJsonBody(request);
      const authorization = request.headers.get('authorization');
      const accessToken = bearerToken(authorization === null ? {} : { authorization });
      await changePassword(await deps(), { accessToken, body, sourceIp: sourceIp(request) });
      return toFetchResponse(noContent());
    },
  },
  '/.well-known/jwks.json': {
    GET: async ({ publicTokens }) => toFetchResponse(jsonResponse(200, (await publicTokens()).jwks(), publicCache)),
  },
  '/.well-known/openid-configuration': {
    GET: async ({ request, publicTokens }) =>
      toFetchResponse(jsonResponse(200, openIdConfiguration(await publicTokens(), new URL(request.url).origin), publicCache)),
  },
};
