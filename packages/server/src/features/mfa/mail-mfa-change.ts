import type { MfaChange } from '../../mail/account-mail.js';
import type { MfaMailDependencies } from './dependencies.js';

/**
 * Tells the owner of every change to their factors, so a change they did not make is seen.
 * Best effort: the change is made whatever mail does (a failure is audited, never answered).
 */
export async function mailMfaChange(deps: MfaMailDependencies, userId: string, change: MfaChange): Promise<void> {
  try {
    const user = await deps.users.getUserById(userId);
    if (user !== undefined) await deps.mail.mfaChanged(user.email, change);
  } catch (error) {
    mailFailed(deps, error);
  }
}

/** The same, to an address already known (the login's account): no lookup by userId. */
export async function mailMfaChangeTo(deps: Pick<MfaMailDependencies, 'mail' | 'audit'>, email: string, change: MfaChange): Promise<void> {
  await deps.mail.mfaChanged(email, change).catch((error: unknown) => mailFailed(deps, error));
}

function mailFailed(deps: Pick<MfaMailDependencies, 'audit'>, error: unknown): void {
  deps.audit({ type: 'auth.mail_failed', mail: 'mfa_changed', code: (error as { code?: string }).code ?? 'unknown' });
}
