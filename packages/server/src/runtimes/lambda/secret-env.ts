import type { Env } from '../../config/env.js';
import { readConfig, type PasslaneConfig } from '../../config/read-config.js';
import { onceUntilFailure } from '../../shared/once-until-failure.js';
import { lambdaEnv } from './lambda-env.js';
import { loadSecrets } from './load-secrets.js';
import { spreadOAuthSecrets } from './oauth-secrets.js';

let load: (() => Promise<Env>) | undefined;

/**
 * The function's environment (lambda-env.ts) with the secrets filled in, once per container. The
 * SSM client is imported only when some `_PARAMETER` is set, so local runs never load or
 * configure it. A failed load is not cached: the next invocation tries again. The values stay in
 * this object, not in process.env (the providers' JSON spread into their variables: oauth-secrets.ts), so child processes and env dumps never see them. The
 * once-wrapper is made at the first call, not at import, so a function that holds no secret
 * bundles nothing of this (nor the SSM client's chunk).
 */
export function secretEnv(): Promise<Env> {
  load ??= onceUntilFailure(async () => spreadOAuthSecrets(await loadSecrets(lambdaEnv(), async () => (await import('./ssm-secret-source.js')).createSsmSecretSource())));
  return load();
}

/** The function's settings (src/config), its secrets included: what the functions holding one build from. */
export async function configWithSecrets(): Promise<PasslaneConfig> {
  return readConfig(await secretEnv());
}
