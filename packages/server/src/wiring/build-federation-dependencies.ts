import type { PasslaneConfig } from '../config/read-config.js';
import type { FederationDependencies, IdentityManagementDependencies } from '../features/federation/dependencies.js';
import { createProviderDirectory } from '../features/federation/provider-directory.js';
import { FederationFlowStore } from '../storage/federation-flow-store.js';
import { IdentityStore } from '../storage/identity-store.js';
import { AccountStore } from '../storage/account-store.js';
import { LoginGuardStore } from '../storage/login-guard-store.js';
import { MfaStore } from '../storage/mfa-store.js';
import { OneTimeTokenStore } from '../storage/one-time-token-store.js';
import { RateLimitStore } from '../storage/rate-limit-store.js';
import { SessionStore } from '../storage/session-store.js';
import { buildAccountMail, buildEventOutbox, buildFingerprint, buildTokenService } from './build-dependencies.js';
import { accountEventRecorder } from '../events/account-events.js';
import { buildHooks } from './build-hooks.js';
import type { Platform } from './platform.js';
import { systemClock } from '../shared/system-clock.js';

/**
 * The federation function (functions/federation.ts): start, callback, POST /oauth/token and the
 * identity routes. The signing key, the fingerprint key (a provider's email meets the accounts
 * by its fingerprint) and the providers' secrets; no hasher and no pepper (no password is
 * verified here, so the bundle carries no argon2 or bcrypt), no MFA keys (a second factor is
 * asked for, finished at POST /login/mfa, the login function's).
 */
export async function buildFederationDependencies(
  config: PasslaneConfig,
  platform: Pick<Platform, 'dynamoDb' | 'audit' | 'jwsSigner' | 'mail' | 'afterEventAppend' | 'hookInvoker'>,
): Promise<FederationDependencies & IdentityManagementDependencies> {
  const client = platform.dynamoDb(config.storage);
  const { table } = config.storage;
  const outbox = buildEventOutbox(client, table, platform);
  const [tokens, fingerprint, hooks] = await Promise.all([buildTokenService(config, platform), buildFingerprint(config), buildHooks(config, platform)]);
  return {
    requireMfa: config.mfa.requireMfa,
    sessions: new SessionStore(client, table, outbox),
    sessionConfig: config.sessions,
    rateLimits: config.rateLimits,
    audit: platform.audit,
    tokens,
    ...hooks,
    fingerprint,
    loginGuard: new LoginGuardStore(client, table, config.rateLimits.windowSeconds),
    counters: new RateLimitStore(client, table),
    oneTimeTokens: new OneTimeTokenStore(client, table),
    users: new AccountStore(client, table, outbox),
    mfa: new MfaStore(client, table),
    ...(config.webauthn !== undefined && { webauthn: config.webauthn }),
    recovery: config.recovery,
    mail: buildAccountMail(config, platform),
    providers: createProviderDirectory(config.federation ?? { providers: [], publicUrl: '' }),
    flows: new FederationFlowStore(client, table),
    identities: new IdentityStore(client, table, outbox),
    now: systemClock,
    accountEvents: accountEventRecorder(config.events, systemClock),
  };
}
