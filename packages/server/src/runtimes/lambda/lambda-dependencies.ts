/**
 * Per Lambda container, each built on the first invocation rather than at import, so a cold
 * start pays only for what its function uses (the JWKS function builds no hasher or table
 * client; only login and token load the signing key), and a test that builds its own pays for
 * nothing. A failed build (bad config) is not cached: the next invocation tries again and logs
 * again.
 * The configuration is read from the function's environment (lambda-env.ts) with the secrets
 * (pepper keys, signing key) fetched from SSM when the deployment names parameters instead of
 * values (secret-env.ts).
 * Each is marked `@__PURE__` so esbuild drops the ones a function does not use: otherwise every
 * bundle would keep them all, and the JWKS zip would carry the hasher and its binaries.
 */
import { readConfig, type PasslaneConfig } from '../../config/read-config.js';
import type { RehashJobDependencies } from '../../features/rehash/run-rehash-job.js';
import { onceUntilFailure } from '../../shared/once-until-failure.js';
import { publicTokenServiceFromConfig, type TokenService } from '../../features/tokens/token-service.js';
import type { AccountDependencies, RegisterDependencies } from '../../accounts/dependencies.js';
import {
  buildAccountDependencies,
  buildAuthDependencies,
  buildRegisterDependencies,
  buildRehashDependencies,
  buildTokenService,
  type AppDependencies,
} from '../../wiring/build-dependencies.js';
import { nodeBulkPlatform, nodePlatform, nodePlatformWithoutBlocklist } from '../node/node-platform.js';
import { getSecretEnv } from './secret-env.js';

/** The configuration with secrets, read once per container. */
export const getConfig: () => Promise<PasslaneConfig> = /* @__PURE__ */ onceUntilFailure(async () => readConfig(await getSecretEnv()));

/** Login: everything, with the signing key, but no password blocklist (a login sets no password), so its bundle holds none. */
export const getAuthDependencies: () => Promise<AppDependencies> = /* @__PURE__ */ onceUntilFailure(async () => {
  const [config, tokens] = await Promise.all([getConfig(), getTokenService()]);
  return buildAuthDependencies(config, nodePlatformWithoutBlocklist, { tokens });
});

/**
 * Password change: the blocklist the new password is checked against, and the public keys only
 * (it verifies the caller's access token, and issues none).
 */
export const getPasswordChangeDependencies: () => Promise<AccountDependencies> = /* @__PURE__ */ onceUntilFailure(async () => {
  const config = await getConfig();
  return buildAccountDependencies(config, nodePlatform, publicTokenServiceFromConfig(config.tokens));
});

/** Password reset and email verification: the same, and the mail sender built at start (they always send). */
export const getRecoveryDependencies: () => Promise<AccountDependencies> = /* @__PURE__ */ onceUntilFailure(async () => {
  const config = await getConfig();
  return buildAccountDependencies(config, nodePlatform, publicTokenServiceFromConfig(config.tokens), {}, { mailAtStart: true });
});

/** Registration: no token service, so the function needs no signing key (nor the right to read it). */
export const getRegisterDependencies: () => Promise<RegisterDependencies> = /* @__PURE__ */ onceUntilFailure(async () =>
  buildRegisterDependencies(await getConfig(), nodePlatform),
);

/** The full token service alone (issue, verify, publish). */
export const getTokenService: () => Promise<TokenService> = /* @__PURE__ */ onceUntilFailure(async () => buildTokenService(await getConfig(), nodePlatformWithoutBlocklist));

/** The rehash job's parts, with the pepper keys fetched from SSM when a parameter is named. */
export const getRehashDependencies: () => Promise<RehashJobDependencies> = /* @__PURE__ */ onceUntilFailure(async () =>
  buildRehashDependencies(await getConfig(), nodeBulkPlatform()),
);
