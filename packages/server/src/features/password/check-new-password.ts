import { BreachCheckUnavailableError } from './rules/errors.js';
import type { PasswordSetAction } from '../../accounts/audit-events.js';
import type { PasswordRulesDependencies } from './dependencies.js';
import { PasswordRejectedError, TemporarilyUnavailableError } from '../../accounts/errors.js';

/** A breach check that fails closed asks the client to come back after this long. */
const BREACH_CHECK_RETRY_AFTER_SECONDS = 5;

/**
 * The one gate every new password passes (register, password change, password reset): the
 * rules of src/passwords, before any hash is spent on it. A refusal is audited (reason and
 * action, never the password) and thrown as PasswordRejectedError (`password_rejected`);
 * a breach check that cannot answer is audited and, when it fails closed, answered
 * `temporarily_unavailable`.
 */
export async function checkNewPassword(
  deps: PasswordRulesDependencies,
  password: string,
  context: { email: string; action: PasswordSetAction; userId?: string },
): Promise<void> {
  const { action, userId } = context;
  let verdict;
  try {
    verdict = await deps.passwordPolicy.check(password, { email: context.email });
  } catch (error) {
    if (!(error instanceof BreachCheckUnavailableError)) throw error;
    deps.audit({ type: 'auth.breach_check_unavailable', action, failClosed: true });
    throw new TemporarilyUnavailableError(BREACH_CHECK_RETRY_AFTER_SECONDS, { cause: error });
  }
  if (!verdict.ok) {
    deps.audit({ type: 'auth.password_rejected', action, reason: verdict.reason, ...(userId !== undefined && { userId }) });
    throw new PasswordRejectedError(verdict.reason, verdict.message);
  }
  if (verdict.breachCheck === 'unavailable') deps.audit({ type: 'auth.breach_check_unavailable', action, failClosed: false });
}

/**
 * After a good login: counts (audits) an existing password the rules would now refuse, with the
 * checks that need neither the blocklist nor the network (length and context words), so the
 * login path stays as cheap as it was and never loads the list. The login goes on either way:
 * the rules apply when a password is set, never to one already in use.
 */
export function auditExistingPassword(deps: PasswordRulesDependencies, user: { userId: string; email: string }, password: string): void {
  const verdict = deps.passwordPolicy.checkCheap(password, { email: user.email });
  if (!verdict.ok) deps.audit({ type: 'auth.login_weak_password', userId: user.userId, reason: verdict.reason });
}
