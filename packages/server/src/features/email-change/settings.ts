/**
 * The lifetimes of an address change's links (README.md here says why):
 * - the link to the new address works 30 minutes: it is asked for by someone signed in a moment
 *   ago, who is waiting for it; a short life bounds how long a mailbox read later (a forwarded
 *   mail, a shared inbox) could still move the account;
 * - the "this wasn't me" link to the old address works 7 days: its owner may read the notice days
 *   later, as the factor undo's.
 */
export const EMAIL_CHANGE_LIMITS = {
  linkSeconds: 30 * 60,
  undoSeconds: 7 * 86_400,
} as const;
