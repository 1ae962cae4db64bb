/**
 * Context-specific words (NIST SP 800-63B-4 §3.1.1.2: "context-specific words, such as the name
 * of the service, the username, and derivatives thereof"): the email's local part and its part
 * before a `+` tag, and the service's name with and without its spaces and punctuation, each kept
 * only if it is 4 or more characters, so that a short local part (`al@`) does not refuse every
 * password holding two common letters. The local part's pieces (`lovelace` of `ada.lovelace`)
 * are not words of their own: too many are ordinary words (`reset-2024@`, `help.desk@`), and a
 * password merely containing one is no guess an attacker makes from the account.
 */
import { codePointCount, foldForComparison } from './normalise.js';

export const MIN_CONTEXT_WORD_LENGTH = 4;

export type ContextWordSource = 'email' | 'service';

export interface ContextWord {
  /** Folded (normalise.ts), as the password is when compared. */
  word: string;
  source: ContextWordSource;
}

/** The service's words: computed once per policy. */
export function serviceWords(serviceName: string | undefined): ContextWord[] {
  if (serviceName === undefined) return [];
  const folded = foldForComparison(serviceName).trim();
  return keep([folded, folded.replace(/[\s\p{P}\p{S}]+/gu, '')], 'service');
}

/** The account's words, from its email (canonical from the use-case, folded again here). */
export function emailWords(email: string | undefined): ContextWord[] {
  if (email === undefined) return [];
  const at = email.lastIndexOf('@');
  const local = foldForComparison(at < 0 ? email : email.slice(0, at));
  const untagged = local.split('+')[0] ?? local;
  return keep([local, untagged], 'email');
}

/** The first context word the folded password contains, if any. */
export function findContextWord(foldedPassword: string, words: readonly ContextWord[]): ContextWord | undefined {
  return words.find(({ word }) => foldedPassword.includes(word));
}

function keep(candidates: string[], source: ContextWordSource): ContextWord[] {
  const words = [...new Set(candidates)].filter((word) => codePointCount(word) >= MIN_CONTEXT_WORD_LENGTH);
  return words.map((word) => ({ word, source }));
}
