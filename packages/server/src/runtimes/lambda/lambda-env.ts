import type { Env } from '../../config/env.js';

/**
 * The function's environment as the deployment set it (serverless.yml, the CDK construct): the
 * one place the Lambda runtime reads process.env; each function then reads from it the settings
 * it uses (src/config) and hands them to the wiring. Secrets the deployment names by parameter
 * (`<VARIABLE>_PARAMETER`) are not in it: secret-env.ts fills them in from SSM, in a module of its
 * own, so the functions that hold no secret (JWKS, discovery, the authorizer, logout) bundle no
 * SSM client.
 */
export function lambdaEnv(): Env {
  return process.env;
}
