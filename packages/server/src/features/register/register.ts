import { AccountExistsError } from '../../storage/errors.js';
import type { RegisterDependencies } from './dependencies.js';
import { checkNewPassword } from '../password/check-new-password.js';
import { AccountExistsConflictError } from '../../accounts/errors.js';
import { enforceRateLimits } from '../../accounts/enforce-rate-limits.js';
import { mailFailureCode } from '../recovery/mail-failure.js';
import { oldSystemHolds } from '../migration/migrate-account.js';
import { sendVerification } from '../recovery/send-verification.js';
import { canonicalEmail } from '../../accounts/canonical-email.js';
import { checkSignup } from '../../accounts/check-signup.js';

export interface RegisterRequest {
  /** As typed: its canonical form (canonical-email.ts) is the account's key. */
  email: string;
  password: string;
  sourceIp?: string;
}

/** Without email verification: the new account's id (201). With it: the same answer for a new and a taken email (202). */
export type RegisterResult = { userId: string } | { verification: 'sent' };

/**
 * Creates an account. The write is conditional on the email being free, so a duplicate (or 20
 * racing duplicates) can never overwrite an account. The hash is computed before the write in
 * both cases, so a taken email costs the same time as a free one. With email verification on,
 * the answer no longer says which emails have accounts: a new account gets a verification mail,
 * a taken email's owner a mail saying someone tried to register it, and both answers are the
 * same 202, padded to the same time. With lazy migration, an email the old system still holds
 * counts as taken.
 */
export async function register(deps: RegisterDependencies, request: RegisterRequest): Promise<RegisterResult> {
  const email = canonicalEmail(request.email);
  const { password } = request;
  await enforceRateLimits(deps, { action: 'register', sourceIp: request.sourceIp });
  // Before the hash, and the same whether the email is taken or not: a refusal tells nothing about accounts.
  await checkNewPassword(deps, password, { email, action: 'register' });
  // Before the address is looked at: the hook's refusal is the same for a taken address and a free one.
  await checkSignup(deps, { email, method: 'password' });
  const verifying = deps.recovery.emailVerification;
  const timing = verifying ? deps.replyTiming?.start() : undefined;
  const passwordHash = await deps.hasher.hash(password);
  const userId = deps.newUserId?.() ?? crypto.randomUUID();
  // With lazy migration, an email the old system still holds is taken: its owner comes over by logging in.
  const heldByOldSystem = deps.migration !== undefined && (await oldSystemHolds(deps, deps.migration, email));
  if (heldByOldSystem || !(await createAccount(deps, { email, userId, passwordHash, verifying }))) {
    if (!verifying) throw new AccountExistsConflictError();
    await tellOwnerOfAttempt(deps, email);
    await deps.replyTiming?.pad(timing?.done() ?? 0);
    return { verification: 'sent' };
  }
  deps.audit({ type: 'auth.registered', userId });
  if (!verifying) return { userId };
  await sendVerification(deps, { email, accountKey: deps.fingerprint(email), userId });
  await deps.replyTiming?.pad(timing?.done() ?? 0);
  return { verification: 'sent' };
}

/** The conditional create; false when the email already has an account. */
async function createAccount(deps: RegisterDependencies, input: { email: string; userId: string; passwordHash: string; verifying: boolean }): Promise<boolean> {
  const { email, userId, passwordHash, verifying } = input;
  try {
    const registered = deps.accountEvents.of('user.registered', userId, { email, method: 'password' });
    await deps.users.createUser({ email, userId, passwordHash, createdAt: deps.now(), ...(verifying && { emailVerified: false }) }, registered);
    return true;
  } catch (error) {
    if (error instanceof AccountExistsError) return false;
    throw error;
  }
}

/** The taken email's owner hears that someone tried (within the account's mail budget); the stranger hears nothing new. */
async function tellOwnerOfAttempt(deps: RegisterDependencies, email: string): Promise<void> {
  const accountKey = deps.fingerprint(email);
  deps.audit({ type: 'auth.registration_attempt_existing', emailFingerprint: accountKey });
  const budget = await deps.counters.hit({
    key: `register-mail#account#${accountKey}`,
    limit: deps.recovery.mailsPerAccountPerHour,
    windowSeconds: 3600,
    now: deps.now(),
  });
  if (!budget.allowed) return;
  await deps.mail.registrationAttempt(email).catch((error: unknown) => {
    deps.audit({ type: 'auth.mail_failed', mail: 'registration_attempt', code: mailFailureCode(error) });
  });
}
