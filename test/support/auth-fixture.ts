import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createPasswordHasher, type PasswordHasher } from '../../packages/passlane/src/index.js';
import { dynamoDbClientConfig } from '../../packages/server/src/storage/dynamodb-client.js';
import { sendItemRequestsDirectly } from '../../packages/server/src/runtimes/lambda/direct-requests.js';
import { ensureTable } from '../../packages/server/src/storage/table.js';
import { AccountStore } from '../../packages/server/src/storage/account-store.js';
import { JobCursorStore } from '../../packages/server/src/storage/job-cursor-store.js';
import { LoginGuardStore } from '../../packages/server/src/storage/login-guard-store.js';
import { RateLimitStore } from '../../packages/server/src/storage/rate-limit-store.js';
import { SessionStore } from '../../packages/server/src/storage/session-store.js';
import { OneTimeTokenStore } from '../../packages/server/src/storage/one-time-token-store.js';
import { DeviceApprovalStore } from '../../packages/server/src/storage/device-approval-store.js';
import { DEFAULT_DEVICE_APPROVAL_CONFIG } from '../../packages/server/src/features/device-approval/settings.js';
import { MfaStore } from '../../packages/server/src/storage/mfa-store.js';
import { PasskeyStore } from '../../packages/server/src/storage/passkey-store.js';
import { FactorUndoStore } from '../../packages/server/src/storage/factor-undo-store.js';
import { EmailSwitchStore } from '../../packages/server/src/storage/email-switch-store.js';
import { EmailUndoStore } from '../../packages/server/src/storage/email-undo-store.js';
import { createSecretBox } from '../../packages/server/src/features/mfa/secret-box.js';
import { DEFAULT_RECOVERY_CONFIG } from '../../packages/server/src/features/recovery/settings.js';
import { DEFAULT_SESSION_CONFIG } from '../../packages/server/src/features/sessions/settings.js';
import { defaultPasswordPolicy } from './password-policy.js';
import { createKeyring, generateSigningKey } from '../../packages/server/src/features/tokens/keys.js';
import { createTokenService } from '../../packages/server/src/features/tokens/token-service.js';
import type { AuditEvent } from '../../packages/server/src/accounts/audit-events.js';
import { startSession } from '../../packages/server/src/features/sessions/start-session.js';
import { changePassword } from '../../packages/server/src/features/password/change-password.js';
import type { PasswordChangeDependencies } from '../../packages/server/src/features/password/dependencies.js';
import { createEmailFingerprint } from '../../packages/server/src/accounts/fingerprint.js';
import type { AccountChange, AccountMail, MfaChange } from '../../packages/server/src/mail/account-mail.js';
import type { AppDependencies } from '../../packages/server/src/wiring/build-dependencies.js';
import type { Authentication } from '../../packages/server/src/api/route.js';
import type { AuthenticatedSession } from '../../packages/server/src/features/sessions/authenticate-session.js';
import { sessionAuthenticator, type CallerCheckDependencies } from '../../packages/server/src/features/mfa/session-authenticator.js';
import type { RateLimits } from '../../packages/server/src/features/login/settings.js';
import { createProviderDirectory } from '../../packages/server/src/features/federation/provider-directory.js';
import { FederationFlowStore } from '../../packages/server/src/storage/federation-flow-store.js';
import { IdentityStore } from '../../packages/server/src/storage/identity-store.js';
import { accountEventRecorder } from '../../packages/server/src/events/account-events.js';
import { EventOutbox } from '../../packages/server/src/storage/event-outbox.js';

/** Real parts for use-case tests: a table on the given server, the real hasher, real tokens. */
/**
 * `events`: account events recorded (PASSLANE_EVENTS=on), through the one outbox the stores share;
 * `signInEvents`: sign-in events too (PASSLANE_EVENTS_SIGN_IN=on).
 */
export async function createAuthFixture(endpoint: string, overrides: Partial<AppDependencies> = {}, options: { burst?: boolean; events?: boolean; signInEvents?: boolean } = {}) {
  // No middleware cache: tests add middleware (call logs, fault injection) after the first requests.
  // Item requests by the short path, as the functions' client sends them; a test's middleware
  // (initialize step) still sees each call first.
  const config = dynamoDbClientConfig({ endpoint: endpoint });
  // `burst`: hundreds of requests at once from one process (many containers' worth) queue for
  // sockets here, so the functions' 1-second timeouts would measure the queue, not the server.
  const requestHandler = options.burst === true ? { connectionTimeout: 30_000, requestTimeout: 30_000, throwOnRequestTimeout: true } : config.requestHandler;
  const client = new DynamoDBClient({ ...config, requestHandler, cacheMiddleware: false });
  sendItemRequestsDirectly(client);
  const tableName = `users-${crypto.randomUUID()}`;
  await ensureTable(client, tableName);
  const outbox = new EventOutbox(client, tableName);
  const users = new AccountStore(client, tableName, outbox);
  const counters = new RateLimitStore(client, tableName);
  const cursors = new JobCursorStore(client, tableName);
  const tokens = createTokenService({ keyring: await createKeyring(await generateSigningKey()) });
  const events: AuditEvent[] = [];
  const mailbox = capturingMail();
  const deps: AppDependencies = {
    hasher: createPasswordHasher({ pepper: false }),
    passwordPolicy: defaultPasswordPolicy(),
    users,
    counters,
    loginGuard: new LoginGuardStore(client, tableName, (overrides.rateLimits ?? generousLimits()).windowSeconds),
    fingerprint: createEmailFingerprint(crypto.getRandomValues(new Uint8Array(32))),
    tokens,
    sessions: new SessionStore(client, tableName, outbox),
    sessionConfig: { ...DEFAULT_SESSION_CONFIG },
    oneTimeTokens: new OneTimeTokenStore(client, tableName),
    deviceApprovals: new DeviceApprovalStore(client, tableName),
    deviceApproval: { ...DEFAULT_DEVICE_APPROVAL_CONFIG },
    mfa: new MfaStore(client, tableName, outbox),
    passkeys: new PasskeyStore(client, tableName, outbox),
    factorUndos: new FactorUndoStore(client, tableName),
    emailSwitches: new EmailSwitchStore(client, tableName, outbox),
    emailUndos: new EmailUndoStore(client, tableName),
    now: () => new Date(),
    secretBox: createSecretBox([{ id: 'test', key: crypto.getRandomValues(new Uint8Array(32)) }]),
    mfaConfig: { issuer: 'passlane-test' },
    mail: mailbox.mail,
    recovery: { ...DEFAULT_RECOVERY_CONFIG },
    rateLimits: generousLimits(),
    audit: (event) => events.push(event),
    providers: createProviderDirectory({ providers: [], publicUrl: '' }),
    flows: new FederationFlowStore(client, tableName),
    identities: new IdentityStore(client, tableName, outbox),
    accountEvents: accountEventRecorder({ enabled: options.events === true, signIn: options.signInEvents === true }, () => deps.now()),
    ...overrides,
  };
  return { deps, users, counters, cursors, events, mailbox, client, tableName, outbox, dispose: () => client.destroy() };
}

/**
 * The access token of a new live session of the account, started as a login starts one but
 * without the login: no verify, so a legacy hash stays as it is (tests of races with its upgrade).
 * `amr`: what the login would have used (a second factor: what changing factors needs).
 */
export async function sessionToken(deps: AppDependencies, account: { email: string; userId: string }, amr?: readonly string[]): Promise<string> {
  const accountKey = deps.fingerprint(account.email);
  const now = deps.now?.() ?? new Date();
  const started = await startSession(deps, { userId: account.userId, accountKey, read: await deps.sessions.read(accountKey), now, ...(amr !== undefined && { amr }) });
  return (await deps.tokens.issue({ userId: account.userId, sessionId: started.sessionId, now })).accessToken;
}

/** Limits no ordinary test reaches; a test about limits passes its own (`limits({...})`). */
export function generousLimits(): RateLimits {
  return limits({ perSource: 1000, passwordChangePerAccount: 1000 }, { failuresPerAccountSource: 100, accountFailureCeiling: 100 });
}

/** The default limits with some replaced. */
export function limits(top: Partial<Omit<RateLimits, 'login'>> = {}, login: Partial<RateLimits['login']> = {}): RateLimits {
  return {
    perSource: 100,
    windowSeconds: 60,
    passwordChangePerAccount: 10,
    ...top,
    login: { failuresPerAccountSource: 5, delayBaseSeconds: 30, delayMaxSeconds: 900, accountFailureCeiling: 100, accountLockSeconds: 3600, failureFloorMs: 0, successesPerAccount: 1000, successesPerSource: 1000, ...login },
  };
}

/** The real hasher, counting argon2/bcrypt work done through it. */
export function countingHasher(inner: PasswordHasher = createPasswordHasher({ pepper: false })) {
  const calls = { hash: 0, verify: 0, verifyDummy: 0 };
  const hasher: PasswordHasher = {
    ...inner,
    hash: (password, options) => (calls.hash++, inner.hash(password, options)),
    verify: (stored, password) => (calls.verify++, inner.verify(stored, password)),
    verifyDummy: (password) => (calls.verifyDummy++, inner.verifyDummy(password)),
    // An upgrade is one more hash (or wrap) of argon2 work.
    upgrade: (stored, password) => (calls.hash++, inner.upgrade(stored, password)),
  };
  return { hasher, calls };
}

export const uniqueEmail = () => `user-${crypto.randomUUID()}@example.com`;

/** A mail channel for use-case tests: what would have been sent, in memory (the real senders are tested in test/mail*.test.ts). */
export function capturingMail() {
  const sent: Array<{
    kind: 'password_reset' | 'email_verification' | 'registration_attempt' | 'mfa_changed' | 'device_approval' | 'factor_added' | 'account_changed' | 'email_change' | 'email_change_attempt' | 'email_changed';
    to: string;
    token?: string;
    expiresInSeconds?: number;
    change?: MfaChange | AccountChange;
    newEmail?: string;
  }> = [];
  const mail: AccountMail = {
    passwordReset: async (to, token, expiresInSeconds) => void sent.push({ kind: 'password_reset', to, token, expiresInSeconds }),
    emailVerification: async (to, token, expiresInSeconds) => void sent.push({ kind: 'email_verification', to, token, expiresInSeconds }),
    registrationAttempt: async (to) => void sent.push({ kind: 'registration_attempt', to }),
    mfaChanged: async (to, change) => void sent.push({ kind: 'mfa_changed', to, change }),
    deviceApproval: async (to, token, expiresInSeconds) => void sent.push({ kind: 'device_approval', to, token, expiresInSeconds }),
    factorAdded: async (to, change, token, expiresInSeconds) => void sent.push({ kind: 'factor_added', to, change, token, expiresInSeconds }),
    accountChanged: async (to, change) => void sent.push({ kind: 'account_changed', to, change }),
    emailChange: async (to, token, expiresInSeconds) => void sent.push({ kind: 'email_change', to, token, expiresInSeconds }),
    emailChangeAttempt: async (to) => void sent.push({ kind: 'email_change_attempt', to }),
    emailChanged: async (to, newEmail, token, expiresInSeconds) => void sent.push({ kind: 'email_changed', to, newEmail, token, expiresInSeconds }),
  };
  // The link mails (password_reset, email_verification, device_approval, factor_added) carry a token: what a test posts back as one.
  const last = (kind: string) => sent.filter((m) => m.kind === kind).at(-1) as ((typeof sent)[number] & { token: string }) | undefined;
  return { mail, sent, last };
}

/**
 * POST /password's two steps as the route takes them: the token's live session (before the
 * body's fields), then the change. A test that only checks the token may leave the passwords out.
 */
export async function changePasswordWithToken(
  deps: PasswordChangeDependencies,
  request: { accessToken: string | undefined; currentPassword?: string; newPassword?: string; sourceIp?: string },
): Promise<void> {
  const { accessToken, currentPassword = '', newPassword = '', sourceIp } = request;
  await asCaller(deps, accessToken, 'session', (caller) => changePassword(deps, { caller, currentPassword, newPassword, ...(sourceIp !== undefined && { sourceIp }) }));
}

/**
 * What the API does for a route that declares `authenticate`, for tests that call use cases
 * directly: the caller of `accessToken` checked as the route demands, then the use case with it.
 */
export async function asCaller<T>(deps: CallerCheckDependencies, accessToken: string | undefined, authentication: Authentication, run: (caller: AuthenticatedSession) => Promise<T>): Promise<T> {
  return run(await sessionAuthenticator(deps)(authentication, accessToken));
}
