/**
 * What an account's password hash becomes when a factor is undone from the owner's mailbox
 * (features/mfa/undo-factor.ts): no password verifies against it (the hasher refuses it as an
 * unknown format, so a login answers as to a wrong password), and only a reset replaces it. The
 * `!` of a locked crypt(3) password.
 */
export const PASSWORD_RESET_REQUIRED = '!reset-required';
