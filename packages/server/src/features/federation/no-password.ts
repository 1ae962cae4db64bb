import { PASSWORD_RESET_REQUIRED } from '../../accounts/password-reset-required.js';
import type { UserRecord } from '../../storage/account-store.js';

/**
 * The password hash of an account a provider's sign-in created: none. The account item requires
 * one, so it holds the value no password verifies against (the `!` of a locked crypt(3)
 * password: a login with any password answers as to a wrong one), which a password reset
 * replaces: that is how such an account gets a password. The same value a factor undone from the
 * mailbox leaves, and it means the same: no password opens this account.
 */
export const NO_PASSWORD = PASSWORD_RESET_REQUIRED;

/** The account has a password that can open it. */
export function hasPassword(user: Pick<UserRecord, 'passwordHash'>): boolean {
  return user.passwordHash !== NO_PASSWORD;
}
