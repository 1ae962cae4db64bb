/**
 * The one place that turns configuration into services: the hasher, the stores and the token
 * service, the same way for every host (Lambda, `npm start`, Deno, Bun, the Worker, Vercel Edge),
 * the CLI and the rehash job. What differs per host comes in as a Platform. No I/O here besides
 * reading (or, locally, creating) the signing key: DynamoDB clients connect on first use and the
 * hasher loads its backend on first hash.
 */
import { ConfigError } from '../config/config-error.js';
import { decodeFingerprintKey } from '../config/fingerprint-config.js';
import type { PasslaneConfig } from '../config/read-config.js';
import { encodeBase64Padded } from 'passlane/encoding';
import { limitsForBudget, type PasswordHasher, tighterLimits } from 'passlane/common';
import { createBreachCheck } from '../features/password/rules/breach-check.js';
import { createPasswordPolicy, type PasswordPolicy } from '../features/password/rules/policy.js';
import type { RehashJobDependencies } from '../features/rehash/run-rehash-job.js';
import type { LoginDependencies, MfaLoginDependencies } from '../features/login/dependencies.js';
import type { FactorUndoDependencies, MfaDependencies } from '../features/mfa/dependencies.js';
import { createSecretBox, lazySecretBox, type SecretBox } from '../features/mfa/secret-box.js';
import { decodeMfaKeys } from '../config/mfa-config.js';
import { FactorUndoStore } from '../storage/factor-undo-store.js';
import { MfaStore } from '../storage/mfa-store.js';
import { PasskeyStore } from '../storage/passkey-store.js';
import type { PasskeyDependencies, PasskeyLoginDependencies } from '../features/passkeys/dependencies.js';
import type { PasswordChangeDependencies } from '../features/password/dependencies.js';
import type { AccountLifecycleDependencies, OwnAccountDependencies } from '../features/account/dependencies.js';
import type { RecoveryDependencies } from '../features/recovery/dependencies.js';
import type { DeviceApprovalDependencies } from '../features/device-approval/dependencies.js';
import type { FederationDependencies, IdentityManagementDependencies } from '../features/federation/dependencies.js';
import { createProviderDirectory } from '../features/federation/provider-directory.js';
import { FederationFlowStore } from '../storage/federation-flow-store.js';
import { IdentityStore } from '../storage/identity-store.js';
import type { RegisterDependencies } from '../features/register/dependencies.js';
import type { RefreshDependencies, SessionManagementDependencies } from '../features/sessions/dependencies.js';
import type { AuthorizeAccessDependencies } from '../features/sessions/authorize-access.js';
import { DEFAULT_VERDICT_CACHE_ENTRIES, SessionVerdictCache } from '../features/sessions/session-verdict-cache.js';
import type { AuthorizerConfig } from '../features/sessions/settings.js';
import { AccountStore } from '../storage/account-store.js';
import { JobCursorStore } from '../storage/job-cursor-store.js';
import { LoginGuardStore } from '../storage/login-guard-store.js';
import { RateLimitStore } from '../storage/rate-limit-store.js';
import { OneTimeTokenStore } from '../storage/one-time-token-store.js';
import { DeviceApprovalStore } from '../storage/device-approval-store.js';
import { createAccountMail, type AccountMail } from '../mail/account-mail.js';
import { SessionStore } from '../storage/session-store.js';
import { EmailSwitchStore } from '../storage/email-switch-store.js';
import { EmailUndoStore } from '../storage/email-undo-store.js';
import type { EmailChangeDependencies } from '../features/email-change/dependencies.js';
import { publicTokenServiceFromConfig, tokenServiceFromConfig, type PublicTokenService, type TokenService } from '../features/tokens/token-service.js';
import { createFailureTiming } from '../accounts/failure-timing.js';
import { createLoginFailureTiming } from '../features/login/login-failure-timing.js';
import { createEmailFingerprint, type EmailFingerprint } from '../accounts/fingerprint.js';
import { localSecretsRefusedOn, readOrCreateLocalSecret } from '../shared/local-secret-file.js';
import { buildMigrationSource } from './build-migration-source.js';
import { buildHooks } from './build-hooks.js';
import { systemClock } from '../shared/system-clock.js';
import { accountEventRecorder } from '../events/account-events.js';
import { EventOutbox } from '../storage/event-outbox.js';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Platform } from './platform.js';

/**
 * What every route of the API uses, built once (the long-lived hosts, the Worker, tests): each
 * feature's dependencies (features/<feature>/dependencies.ts), with the full token service.
 */
export type AppDependencies = LoginDependencies &
  MfaLoginDependencies &
  MfaDependencies &
  FactorUndoDependencies &
  PasskeyDependencies &
  PasskeyLoginDependencies &
  RegisterDependencies &
  PasswordChangeDependencies &
  RecoveryDependencies &
  DeviceApprovalDependencies &
  RefreshDependencies &
  SessionManagementDependencies &
  AccountLifecycleDependencies &
  EmailChangeDependencies &
  FederationDependencies &
  IdentityManagementDependencies & { tokens: TokenService };

/** The configured policy and pepper keys, within the platform's limits. */
export function buildHasher(config: PasslaneConfig, platform: Platform): PasswordHasher {
  const { onLambda } = config.hasher;
  const verifyBudget = { ...platform.defaultVerifyBudget, ...config.hasher.verifyBudget };
  return platform.createPasswordHasher({
    ...platform.hasherLimits,
    // Stored hashes must fit where they are verified: the host's bounds and the budget's, whichever is tighter.
    limits: tighterLimits(platform.hasherLimits?.limits, limitsForBudget(verifyBudget, onLambda)),
    backend: config.hasher.backend,
    pepper: config.hasher.pepper ?? false,
    logger: { warn: (message, fields) => platform.warn(message, fields) },
  });
}

/** The parts registration and the account routes share, as built: no token service, no login or session state. */
type AccountParts = Omit<AppDependencies, 'tokens' | 'loginGuard' | 'sessions' | 'sessionConfig' | 'failureTiming'>;

/**
 * Registration (features/register): everything but a token service, so its function needs no
 * signing key. Explicit parts in `overrides` win, so tests can inject a counting hasher or a
 * fixed clock.
 */
export function buildRegisterDependencies(
  config: PasslaneConfig,
  platform: Platform,
  overrides: Partial<AppDependencies> = {},
  options: BuildOptions = {},
): Promise<RegisterDependencies> {
  return buildAccountParts(config, platform, overrides, options);
}

async function buildAccountParts(
  config: PasslaneConfig,
  platform: Platform,
  overrides: Partial<AppDependencies>,
  options: BuildOptions,
  outbox: EventOutbox = buildEventOutbox(platform.dynamoDb(config.storage), config.storage.table, platform),
): Promise<AccountParts> {
  const client = platform.dynamoDb(config.storage);
  const { table } = config.storage;
  const [fingerprint, migration, hooks] = await Promise.all([
    overrides.fingerprint ?? buildFingerprint(config),
    // Built at start when configured, so a bad setting fails the cold start, not a request.
    'migration' in overrides ? overrides.migration : buildMigrationSource(config.migration, platform),
    buildHooks(config, platform),
  ]);
  const parts: AccountParts = {
    rateLimits: config.rateLimits,
    hasher: buildHasher(config, platform),
    passwordPolicy: buildPasswordPolicy(config, platform),
    users: new AccountStore(client, table, outbox),
    counters: new RateLimitStore(client, table),
    oneTimeTokens: new OneTimeTokenStore(client, table),
    recovery: config.recovery,
    deviceApprovals: new DeviceApprovalStore(client, table),
    deviceApproval: config.deviceApproval,
    mfa: new MfaStore(client, table, outbox),
    factorUndos: new FactorUndoStore(client, table),
    passkeys: new PasskeyStore(client, table, outbox),
    emailSwitches: new EmailSwitchStore(client, table, outbox),
    emailUndos: new EmailUndoStore(client, table),
    ...(config.webauthn !== undefined && { webauthn: config.webauthn }),
    secretBox: buildSecretBox(config),
    mfaConfig: config.mfa,
    requireMfa: config.mfa.requireMfa,
    mail: overrides.mail ?? buildAccountMail(config, platform, options),
    fingerprint,
    // One per container: it remembers how long recent reset and registration answers took.
    replyTiming: createFailureTiming(),
    audit: platform.audit,
    now: systemClock,
    ...(migration && { migration }),
    ...hooks,
    // Sign-in with providers (features/federation): none configured, every provider is `provider_not_found`.
    providers: createProviderDirectory(config.federation ?? { providers: [], publicUrl: '' }),
    flows: new FederationFlowStore(client, table),
    identities: new IdentityStore(client, table, outbox),
    // Stamped with the clock the parts end up with (a test's own, when it passes one).
    accountEvents: accountEventRecorder(config.events, () => parts.now()),
    ...overrides,
  };
  return parts;
}

/**
 * The outbox every store of one build records account events through (storage/event-outbox.ts):
 * one per build, so it learns once whether the server has transactions, and tells the host's
 * delivery (Platform.afterEventAppend) of each account with new events.
 */
export function buildEventOutbox(client: DynamoDBClient, table: string, platform: Pick<Platform, 'afterEventAppend'>): EventOutbox {
  return new EventOutbox(client, table, { ...(platform.afterEventAppend !== undefined && { afterAppend: platform.afterEventAppend }) });
}

/**
 * The rules for new passwords (src/passwords): the configured minimum and service name, the
 * platform's blocklist (none on the login function: its policy only counts, see
 * check-new-password.ts) and, when enabled, the breach check (the runtime's own fetch).
 */
export function buildPasswordPolicy(config: Pick<PasslaneConfig, 'passwords'>, platform: Pick<Platform, 'passwordBlocklist'>): PasswordPolicy {
  const { minLength, serviceName, breachCheck } = config.passwords;
  return createPasswordPolicy({
    minLength,
    serviceName,
    ...(platform.passwordBlocklist !== undefined && { blocklist: platform.passwordBlocklist }),
    ...(breachCheck.enabled && {
      breachCheck: {
        check: createBreachCheck({ url: breachCheck.url, timeoutMs: breachCheck.timeoutMs, minCount: breachCheck.minCount }),
        failClosed: breachCheck.failClosed,
      },
    }),
  });
}

export interface BuildOptions {
  /**
   * Build the mail sender now, so a missing setting (PASSLANE_MAIL_FROM, PASSLANE_APP_URL) stops
   * the start: for hosts that serve the recovery routes. It is built now anyway when
   * registration sends verification mail; otherwise at the first mail.
   */
  mailAtStart?: boolean;
}

/**
 * The account mails over the configured transport (src/mail). Functions that may never send
 * (a login without verification) build it at the first mail, so they start without mail settings.
 */
export function buildAccountMail(config: PasslaneConfig, platform: Pick<Platform, 'mail'>, options: BuildOptions = {}): AccountMail {
  const create = () => createAccountMail(config.mail, platform.mail ?? {});
  if (options.mailAtStart === true || config.recovery.emailVerification) return create();
  let built: AccountMail | undefined;
  const mail = () => (built ??= create());
  return {
    passwordReset: (...args) => mail().passwordReset(...args),
    emailVerification: (...args) => mail().emailVerification(...args),
    registrationAttempt: (...args) => mail().registrationAttempt(...args),
    mfaChanged: (...args) => mail().mfaChanged(...args),
    deviceApproval: (...args) => mail().deviceApproval(...args),
    factorAdded: (...args) => mail().factorAdded(...args),
    accountChanged: (...args) => mail().accountChanged(...args),
    emailChange: (...args) => mail().emailChange(...args),
    emailChangeAttempt: (...args) => mail().emailChangeAttempt(...args),
    emailChanged: (...args) => mail().emailChanged(...args),
  };
}

/**
 * Every route's dependencies with the signing key: the long-lived hosts and the Worker, which
 * serve every route, and login (buildLoginDependencies).
 */
export async function buildAuthDependencies(
  config: PasslaneConfig,
  platform: Platform,
  overrides: Partial<AppDependencies> = {},
  options: BuildOptions = {},
): Promise<AppDependencies> {
  return buildAccountDependencies(config, platform, overrides.tokens ?? buildTokenService(config, platform), overrides, options);
}

/** POST /login and /login/mfa (features/login): everything, with the signing key. */
export function buildLoginDependencies(config: PasslaneConfig, platform: Platform, overrides: Partial<AppDependencies> = {}): Promise<MfaLoginDependencies> {
  return buildAuthDependencies(config, platform, overrides);
}

/** POST /password (features/password): everything a login has but the signing key; the public keys verify the caller. */
export function buildPasswordChangeDependencies(config: PasslaneConfig, platform: Platform): Promise<PasswordChangeDependencies> {
  return buildAccountDependencies(config, platform, buildPublicTokenService(config));
}

/**
 * The recovery routes (features/recovery) and the device approval's (features/device-approval),
 * served by one function: the same, and the mail sender built at start (they always send).
 */
export function buildRecoveryDependencies(config: PasslaneConfig, platform: Platform): Promise<RecoveryDependencies & DeviceApprovalDependencies> {
  return buildAccountDependencies(config, platform, buildPublicTokenService(config), {}, { mailAtStart: true });
}

/**
 * Everything a login has, with the given token service: the full one (buildAuthDependencies), or
 * a verifying one for password change, reset and email verification, whose functions never hold
 * the signing key.
 */
async function buildAccountDependencies<T extends Pick<TokenService, 'verify'>>(
  config: PasslaneConfig,
  platform: Platform,
  tokenService: T | Promise<T>,
  overrides: Partial<AppDependencies> = {},
  options: BuildOptions = {},
): Promise<AccountParts & Pick<AppDependencies, 'loginGuard' | 'sessions' | 'sessionConfig' | 'failureTiming'> & { tokens: T }> {
  // One outbox for the account stores and the sessions' (a login's sign-in event: features/login/finish-login.ts).
  const outbox = buildEventOutbox(platform.dynamoDb(config.storage), config.storage.table, platform);
  // Everything that reads a secret or builds the migration source at start, together.
  const [tokens, parts] = await Promise.all([tokenService, buildAccountParts(config, platform, overrides, options, outbox)]);
  const loginGuard = overrides.loginGuard ?? new LoginGuardStore(platform.dynamoDb(config.storage), config.storage.table, config.rateLimits.windowSeconds);
  // One per container: it remembers this container's verify costs per stored shape.
  const { failureFloorMs: floorMs, failurePadFactor: padFactor } = config.rateLimits.login;
  const failureTiming = overrides.failureTiming ?? createLoginFailureTiming({ floorMs, ...(padFactor !== undefined && { padFactor }) });
  const sessions = overrides.sessions ?? new SessionStore(platform.dynamoDb(config.storage), config.storage.table, outbox);
  const sessionConfig = overrides.sessionConfig ?? config.sessions;
  return { ...parts, tokens, loginGuard, failureTiming, sessions, sessionConfig };
}

/**
 * The /mfa routes (features/mfa): the public keys, the sessions, the factors, the box sealing TOTP
 * secrets, the accounts (for the email) and the mail; nothing that hashes, signs or fingerprints.
 */
export async function buildMfaDependencies(config: PasslaneConfig, platform: Pick<Platform, 'dynamoDb' | 'audit' | 'mail' | 'afterEventAppend'>): Promise<MfaDependencies> {
  const client = platform.dynamoDb(config.storage);
  const { table } = config.storage;
  const outbox = buildEventOutbox(client, table, platform);
  return {
    tokens: await buildPublicTokenService(config),
    sessions: new SessionStore(client, table),
    mfa: new MfaStore(client, table, outbox),
    factorUndos: new FactorUndoStore(client, table),
    users: new AccountStore(client, table, outbox),
    counters: new RateLimitStore(client, table),
    secretBox: buildSecretBox(config),
    mfaConfig: config.mfa,
    mail: buildAccountMail(config, platform, { mailAtStart: true }),
    audit: platform.audit,
    now: systemClock,
    accountEvents: accountEventRecorder(config.events, systemClock),
  };
}

/**
 * POST /mfa/undo (features/mfa/undo-factor.ts): the link's item, the factors, the account, its
 * sessions, a reset link and its mail; no token service, hasher, TOTP key or fingerprint key
 * (the link names the account's key, its item the email).
 */
export function buildFactorUndoDependencies(config: PasslaneConfig, platform: Pick<Platform, 'dynamoDb' | 'audit' | 'mail' | 'afterEventAppend'>): FactorUndoDependencies {
  const client = platform.dynamoDb(config.storage);
  const { table } = config.storage;
  const outbox = buildEventOutbox(client, table, platform);
  return {
    factorUndos: new FactorUndoStore(client, table),
    mfa: new MfaStore(client, table, outbox),
    passkeys: new PasskeyStore(client, table, outbox),
    users: new AccountStore(client, table, outbox),
    sessions: new SessionStore(client, table),
    oneTimeTokens: new OneTimeTokenStore(client, table),
    recovery: config.recovery,
    mail: buildAccountMail(config, platform, { mailAtStart: true }),
    audit: platform.audit,
    now: systemClock,
    accountEvents: accountEventRecorder(config.events, systemClock),
  };
}

/**
 * The address change routes (features/email-change): the public keys (the request's caller), the
 * sessions, the account and its factors (moved with it), the one-time items, the mail budgets,
 * the fingerprint key (the new address's keys) and the mail; nothing that hashes, signs or opens
 * a TOTP secret (the undo makes the password unusable, it sets none).
 */
export async function buildEmailChangeDependencies(config: PasslaneConfig, platform: Pick<Platform, 'dynamoDb' | 'audit' | 'mail' | 'afterEventAppend'>): Promise<EmailChangeDependencies> {
  const client = platform.dynamoDb(config.storage);
  const { table } = config.storage;
  const outbox = buildEventOutbox(client, table, platform);
  const [tokens, fingerprint] = await Promise.all([buildPublicTokenService(config), buildFingerprint(config)]);
  return {
    tokens,
    requireMfa: config.mfa.requireMfa,
    sessions: new SessionStore(client, table),
    users: new AccountStore(client, table, outbox),
    mfa: new MfaStore(client, table, outbox),
    counters: new RateLimitStore(client, table),
    oneTimeTokens: new OneTimeTokenStore(client, table),
    emailSwitches: new EmailSwitchStore(client, table, outbox),
    emailUndos: new EmailUndoStore(client, table),
    identities: new IdentityStore(client, table, outbox),
    recovery: config.recovery,
    fingerprint,
    mail: buildAccountMail(config, platform, { mailAtStart: true }),
    audit: platform.audit,
    now: systemClock,
    accountEvents: accountEventRecorder(config.events, systemClock),
  };
}

/**
 * The /passkeys routes (features/passkeys): the public keys, the sessions, the factors, the
 * passkeys' items and challenges, the accounts (for the email) and the mail; nothing that
 * hashes, signs or fingerprints.
 */
export async function buildPasskeyDependencies(config: PasslaneConfig, platform: Pick<Platform, 'dynamoDb' | 'audit' | 'mail' | 'afterEventAppend'>): Promise<PasskeyDependencies> {
  const client = platform.dynamoDb(config.storage);
  const { table } = config.storage;
  const outbox = buildEventOutbox(client, table, platform);
  return {
    tokens: await buildPublicTokenService(config),
    sessions: new SessionStore(client, table),
    mfa: new MfaStore(client, table, outbox),
    passkeys: new PasskeyStore(client, table, outbox),
    factorUndos: new FactorUndoStore(client, table),
    users: new AccountStore(client, table, outbox),
    ...(config.webauthn !== undefined && { webauthn: config.webauthn }),
    mail: buildAccountMail(config, platform, { mailAtStart: true }),
    audit: platform.audit,
    now: systemClock,
    accountEvents: accountEventRecorder(config.events, systemClock),
  };
}

/**
 * POST /passkey/login/options and /passkey/login (features/passkeys): a login's counters and
 * sessions, the signing key, the passkeys' items (and their count of wrong assertions, in the
 * factors item) and the verification mail; no hasher, pepper or
 * fingerprint key (the credential's lookup names the account's key).
 */
export async function buildPasskeyLoginDependencies(
  config: PasslaneConfig,
  platform: Pick<Platform, 'dynamoDb' | 'audit' | 'jwsSigner' | 'mail' | 'hookInvoker' | 'afterEventAppend'>,
): Promise<PasskeyLoginDependencies> {
  const client = platform.dynamoDb(config.storage);
  const { table } = config.storage;
  const [tokens, { tokenHook }] = await Promise.all([buildTokenService(config, platform), buildHooks(config, platform)]);
  return {
    ...sessionParts(config, platform),
    // A login's session write carries its sign-in event where the deployment records them (src/events/README.md, "Sign-in events").
    sessions: new SessionStore(client, table, buildEventOutbox(client, table, platform)),
    accountEvents: accountEventRecorder(config.events, systemClock),
    tokens,
    ...(tokenHook && { tokenHook }),
    loginGuard: new LoginGuardStore(client, table, config.rateLimits.windowSeconds),
    counters: new RateLimitStore(client, table),
    oneTimeTokens: new OneTimeTokenStore(client, table),
    passkeys: new PasskeyStore(client, table),
    mfa: new MfaStore(client, table),
    ...(config.webauthn !== undefined && { webauthn: config.webauthn }),
    recovery: config.recovery,
    mail: buildAccountMail(config, platform),
  };
}

/**
 * The account's lifecycle (features/account): the accounts, their sessions, factors, passkey
 * lookups and one-time tokens, the fingerprint key that names them, the mail; nothing that
 * hashes or signs. The operator API and the CLI take these; DELETE /account adds the public keys.
 */
export async function buildAccountLifecycleDependencies(config: PasslaneConfig, platform: Pick<Platform, 'dynamoDb' | 'audit' | 'mail' | 'afterEventAppend'>): Promise<AccountLifecycleDependencies> {
  const client = platform.dynamoDb(config.storage);
  const { table } = config.storage;
  const outbox = buildEventOutbox(client, table, platform);
  return {
    users: new AccountStore(client, table, outbox),
    sessions: new SessionStore(client, table),
    mfa: new MfaStore(client, table, outbox),
    passkeys: new PasskeyStore(client, table, outbox),
    identities: new IdentityStore(client, table, outbox),
    oneTimeTokens: new OneTimeTokenStore(client, table),
    fingerprint: await buildFingerprint(config),
    recovery: config.recovery,
    mail: buildAccountMail(config, platform, { mailAtStart: true }),
    audit: platform.audit,
    now: systemClock,
    accountEvents: accountEventRecorder(config.events, systemClock),
  };
}

/** DELETE /account (features/account): the lifecycle's parts and the public keys that verify the caller. */
export async function buildOwnAccountDependencies(config: PasslaneConfig, platform: Pick<Platform, 'dynamoDb' | 'audit' | 'mail' | 'afterEventAppend'>): Promise<OwnAccountDependencies> {
  const [lifecycle, tokens] = await Promise.all([buildAccountLifecycleDependencies(config, platform), buildPublicTokenService(config)]);
  return { ...lifecycle, tokens, requireMfa: config.mfa.requireMfa === true };
}

/** POST /token (features/sessions): the signing key and the sessions, nothing that hashes. */
export async function buildRefreshDependencies(
  config: Pick<PasslaneConfig, 'storage' | 'sessions' | 'rateLimits' | 'tokens' | 'hooks'>,
  platform: Pick<Platform, 'dynamoDb' | 'audit' | 'jwsSigner' | 'hookInvoker'>,
): Promise<RefreshDependencies> {
  const [tokens, { tokenHook }] = await Promise.all([buildTokenService(config, platform), buildHooks(config, platform)]);
  return { ...sessionParts(config, platform), tokens, ...(tokenHook && { tokenHook }) };
}

/** Logout and the session list (features/sessions): the public keys and the sessions, nothing that hashes or signs. */
export async function buildSessionManagementDependencies(
  config: Pick<PasslaneConfig, 'storage' | 'sessions' | 'rateLimits' | 'tokens'>,
  platform: Pick<Platform, 'dynamoDb' | 'audit'>,
): Promise<SessionManagementDependencies> {
  return { ...sessionParts(config, platform), tokens: await buildPublicTokenService(config) };
}

function sessionParts(config: Pick<PasslaneConfig, 'storage' | 'sessions' | 'rateLimits'> & Partial<Pick<PasslaneConfig, 'mfa'>>, platform: Pick<Platform, 'dynamoDb' | 'audit'>) {
  return {
    requireMfa: config.mfa?.requireMfa === true,
    sessions: new SessionStore(platform.dynamoDb(config.storage), config.storage.table),
    sessionConfig: config.sessions,
    rateLimits: config.rateLimits,
    audit: platform.audit,
    now: systemClock,
  };
}

/**
 * The Lambda authorizer in front of other APIs (features/sessions/authorize-access.ts): the
 * public keys (never the private key), the sessions items and this container's verdict cache.
 */
export async function buildAuthorizerDependencies(
  config: Pick<PasslaneConfig, 'storage' | 'tokens'> & { authorizer: AuthorizerConfig } & Partial<Pick<PasslaneConfig, 'mfa'>>,
  platform: Pick<Platform, 'dynamoDb'>,
): Promise<AuthorizeAccessDependencies> {
  return {
    requireMfa: config.mfa?.requireMfa === true,
    tokens: await buildPublicTokenService(config),
    sessions: new SessionStore(platform.dynamoDb(config.storage), config.storage.table),
    cache: new SessionVerdictCache({ ttlSeconds: config.authorizer.cacheSeconds, maxEntries: DEFAULT_VERDICT_CACHE_ENTRIES }),
    now: systemClock,
  };
}

/**
 * The keyed email fingerprint. Without PASSLANE_FINGERPRINT_KEY, a developer's machine generates
 * one into the data directory; on Lambda and the edge that would give every container its own
 * key (and unrelated counters), so there the key must be configured.
 */
export async function buildFingerprint(config: PasslaneConfig): Promise<EmailFingerprint> {
  const { key } = config.fingerprint;
  if (key !== undefined) return createEmailFingerprint(key);
  const local = await localKey('PASSLANE_FINGERPRINT_KEY', config.fingerprint, LOCAL_FINGERPRINT_KEY_FILE, (bytes) => encodeBase64Padded(bytes));
  return createEmailFingerprint(decodeFingerprintKey(local.text, local.path));
}

export const LOCAL_FINGERPRINT_KEY_FILE = 'fingerprint-key';

/**
 * The box sealing TOTP secrets, built at its first use (secret-box.ts `lazySecretBox`). Without
 * PASSLANE_MFA_KEYS, a developer's machine generates a key into the data directory (as for the
 * fingerprint key); on Lambda and the edge it must be configured, never generated: a key per
 * container would lose every secret it sealed.
 */
export function buildSecretBox(config: Pick<PasslaneConfig, 'mfa'>): SecretBox {
  return lazySecretBox(async () => {
    const { keys } = config.mfa;
    if (keys !== undefined) return createSecretBox(keys);
    const local = await localKey('PASSLANE_MFA_KEYS', config.mfa, LOCAL_MFA_KEYS_FILE, (bytes) => `local:${encodeBase64Padded(bytes)}`);
    return createSecretBox(decodeMfaKeys(local.text, local.path));
  });
}

/**
 * A key `variable` leaves unset: on a developer's machine, 32 random bytes generated once into the
 * data directory (as `format` writes them) and read from there after; on Lambda and the edge an
 * error, since a key per container would not match the others' (nor outlive the container).
 */
async function localKey(
  variable: string,
  where: { localKeyDir: string; onLambda: boolean },
  fileName: string,
  format: (bytes: Uint8Array) => string,
): Promise<{ text: string; path: string }> {
  const refusedOn = localSecretsRefusedOn(where.onLambda);
  if (refusedOn !== undefined) {
    throw new ConfigError(variable, `is not set; on ${refusedOn === 'lambda' ? 'AWS Lambda' : refusedOn} it must be configured (a secret), never generated`);
  }
  return readOrCreateLocalSecret(
    where.localKeyDir,
    fileName,
    async () => `${format(crypto.getRandomValues(new Uint8Array(32)))}\n`,
    (message) => new ConfigError(variable, `is not set, and the local key failed: ${message}`),
  );
}

export const LOCAL_MFA_KEYS_FILE = 'mfa-keys';

/** Issue, verify and publish, signing the host's way (Platform.jwsSigner). */
export function buildTokenService(config: Pick<PasslaneConfig, 'tokens'>, platform: Pick<Platform, 'jwsSigner'>): Promise<TokenService> {
  return tokenServiceFromConfig(config.tokens, { signer: platform.jwsSigner });
}

/** Verify and publish only: from the public keys when configured, so no private key is needed. */
export function buildPublicTokenService(config: Pick<PasslaneConfig, 'tokens'>): Promise<PublicTokenService> {
  return publicTokenServiceFromConfig(config.tokens);
}

/**
 * The rehash job (Lambda and `passlane rehash`): the same table and the same hashing policy and
 * pepper keys as the API, so wrapped and re-sealed records are exactly what a login accepts.
 */
export function buildRehashDependencies(config: PasslaneConfig, platform: Platform): RehashJobDependencies {
  const client = platform.dynamoDb(config.storage);
  const { table } = config.storage;
  return { hasher: buildHasher(config, platform), users: new AccountStore(client, table), cursors: new JobCursorStore(client, table) };
}

/** `passlane import` and `passlane inventory`: the hasher and the accounts. */
export function buildAccountTools(config: PasslaneConfig, platform: Platform): { hasher: PasswordHasher; users: AccountStore } {
  return { hasher: buildHasher(config, platform), users: new AccountStore(platform.dynamoDb(config.storage), config.storage.table) };
}
