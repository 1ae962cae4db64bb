import type { PasslaneConfig } from '../config/read-config.js';
import { ConfigError } from '../config/config-error.js';
import type { HookCaller } from '../hooks/hook-caller.js';
import { createHttpsHook } from '../hooks/https-hook.js';
import { createLambdaHook } from '../hooks/lambda-hook.js';
import type { HookConfig } from '../hooks/settings.js';
import { createSignupHook, type SignupHook } from '../hooks/signup-hook.js';
import { createTokenHook, type TokenHook } from '../hooks/token-hook.js';
import { systemClock } from '../shared/system-clock.js';
import type { Platform } from './platform.js';

/**
 * The token and sign-up hooks as configured (src/hooks/README.md), each absent when off: then no
 * client is built and nothing is awaited on a login. A Lambda hook's SDK client comes from the
 * platform, loaded only now, so hosts without the SDK (the Worker) refuse it at start.
 */
export async function buildHooks(
  config: Pick<PasslaneConfig, 'hooks' | 'tokens'>,
  platform: Pick<Platform, 'hookInvoker'>,
): Promise<{ tokenHook?: TokenHook; signupHook?: SignupHook }> {
  const { token, signup } = config.hooks ?? {};
  const [tokenCaller, signupCaller] = await Promise.all([
    token && hookCaller(token, 'PASSLANE_TOKEN_HOOK_FUNCTION', platform),
    signup && hookCaller(signup, 'PASSLANE_SIGNUP_HOOK_FUNCTION', platform),
  ]);
  const { clientId, scopes } = config.tokens;
  return {
    ...(token && tokenCaller && {
      tokenHook: createTokenHook(tokenCaller, { onFailure: token.onFailure, clientId, ...(scopes.length > 0 && { scope: scopes.join(' ') }), now: systemClock }),
    }),
    ...(signupCaller && { signupHook: createSignupHook(signupCaller, { now: systemClock }) }),
  };
}

async function hookCaller(hook: HookConfig, variable: string, platform: Pick<Platform, 'hookInvoker'>): Promise<HookCaller> {
  const { target, timeoutMs } = hook;
  if (target.kind === 'url') return createHttpsHook({ url: target.url, secrets: target.secrets, timeoutMs });
  if (platform.hookInvoker === undefined) throw new ConfigError(variable, 'is not supported on this host (no AWS SDK here); use the _URL form');
  return createLambdaHook({ functionName: target.functionName, timeoutMs, invoker: await platform.hookInvoker(target.connection, timeoutMs) });
}
