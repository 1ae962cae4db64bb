/**
 * passlane on Cloudflare Workers: POST /register, /login, /password and the JWKS, from the same
 * use-cases as the Lambda functions, with the same JSON contract. argon2id runs on the WASM
 * backend from the statically imported module (src/edge.ts); DynamoDB through the AWS SDK.
 * Configuration and secrets are bindings (see wrangler.toml and edge/README.md).
 */
import { HttpError } from '../src/http/http-errors.js';
import { getEdgeDependencies, getEdgePublicTokens } from './edge-dependencies.js';
import { errorToResponse } from './responses.js';
import { ROUTES } from './routes.js';
import type { WorkerEnv } from './worker-env.js';

export type { WorkerEnv } from './worker-env.js';

/** The part of Cloudflare's ExecutionContext this Worker could use (it needs none of it today). */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
}

export default {
  async fetch(request: Request, env: WorkerEnv, _ctx?: WorkerContext): Promise<Response> {
    const { pathname } = new URL(request.url);
    try {
      const route = ROUTES[pathname];
      if (route === undefined) throw new HttpError(404, 'not_found', 'no such route');
      const handle = route[request.method.toUpperCase()];
      if (handle === undefined) {
        const allow = Object.keys(route).join(', ');
        throw new HttpError(405, 'method_not_allowed', `use ${allow}`, { allow });
      }
      return await handle({ request, deps: () => getEdgeDependencies(env), publicTokens: () => getEdgePublicTokens(env) });
    } catch (error) {
      // Known routes only: an arbitrary path is user input (it could hold an email).
      return errorToResponse(error, pathname in ROUTES ? pathname : 'unknown');
    }
  },
};
