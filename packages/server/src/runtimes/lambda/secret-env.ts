import type { Env } from '../../config/env.js';
import { onceUntilFailure } from '../../shared/once-until-failure.js';
import { lambdaEnv } from './lambda-env.js';
import { loadSecrets } from './load-secrets.js';

/**
 * The function's environment (lambda-env.ts) with the secrets filled in, once per container. The
 * SSM client is imported only when some `_PARAMETER` is set, so local runs never load or
 * configure it. A failed load is not cached: the next invocation tries again. The values stay in
 * this object, not in process.env, so child processes and env dumps never see them.
 */
export const getSecretEnv: () => Promise<Env> = /* @__PURE__ */ onceUntilFailure(() =>
  loadSecrets(lambdaEnv(), async () => (await import('./ssm-secret-source.js')).createSsmSecretSource()),
);
