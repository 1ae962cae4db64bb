import type { AccountChange, MfaChange } from '../../mail/account-mail.js';
import type { AccountLifecycleDependencies } from './dependencies.js';

/** Tells the owner what happened to their account. Best effort: the action stands whatever mail does (a failure is audited). */
export async function mailAccountChange(deps: Pick<AccountLifecycleDependencies, 'mail' | 'audit'>, email: string, change: AccountChange): Promise<void> {
  await deps.mail.accountChanged(email, change).catch((error: unknown) => {
    deps.audit({ type: 'auth.mail_failed', mail: 'account_changed', code: failureCode(error) });
  });
}

/** The same for a change of the account's factors, in the mails the owner gets for their own changes (features/mfa). */
export async function mailFactorChange(deps: Pick<AccountLifecycleDependencies, 'mail' | 'audit'>, email: string, change: MfaChange): Promise<void> {
  await deps.mail.mfaChanged(email, change).catch((error: unknown) => {
    deps.audit({ type: 'auth.mail_failed', mail: 'mfa_changed', code: failureCode(error) });
  });
}

function failureCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}
