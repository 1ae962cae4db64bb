/**
 * The rules for a password being set (register, password change, reset), after NIST SP
 * 800-63B-4 §3.1.1.2 (reasons in README.md here): at least a configurable minimum of characters
 * that count (normalise.ts: no invisible characters, controls or marks with no base, and not only
 * whitespace), at most a maximum of code points after NFKC within the hasher's byte bound; no
 * composition rules and no truncation; and, compared without what does not count: not a context
 * word (the email's local part, the service's name), not on the blocklist of common passwords,
 * and, when configured, not in Have I Been Pwned's corpus. The first rule broken is the verdict,
 * cheapest first, so a network call is made only for a password that passed everything else.
 * Nothing here logs, and no verdict holds the password.
 */
import { DEFAULT_PASSWORD_RULES } from 'passlane/common';
import type { PasswordRejectionReason } from '../../../accounts/audit-events.js';
import { utf8Length } from 'passlane/encoding';
import type { Blocklist } from './blocklist.js';
import type { BreachCheck } from './breach-check.js';
import { emailWords, findContextWord, serviceWords, type ContextWordSource } from './context-words.js';
import { BlocklistUnavailableError, BreachCheckUnavailableError } from './errors.js';
import { codePointCount, countedForm, countedLength, foldCounted, normalisePassword } from './normalise.js';

/** NIST's floor for any password (§3.1.1.2: "at least 8 characters"); the configured minimum is never lower. */
export const MIN_LENGTH_FLOOR = 8;
/** NIST's "at least 64 characters" must be accepted; this many are (4 UTF-8 bytes each fill the hasher's 1024-byte bound exactly). */
export const DEFAULT_MAX_LENGTH = 256;

// The API answers it (`error.reason`) and audits it: the accounts' vocabulary owns it.
export type { PasswordRejectionReason };

/**
 * Why a password is `too_short`, for its message: `spaces`, it is only whitespace; `invisible`,
 * nothing in it counts; `uncounted`, some of it does not count; `short`, all of it counts.
 */
export type ShortDetail = 'short' | 'uncounted' | 'invisible' | 'spaces';

export interface PasswordContext {
  /** The account's email, normalised: its local part is a context word. */
  email?: string;
}

export type PasswordVerdict =
  | {
      ok: true;
      /** `unavailable`: the breach check could not answer and fails open (the use-case audits it). */
      breachCheck: 'off' | 'passed' | 'unavailable';
    }
  | { ok: false; reason: PasswordRejectionReason; message: string };

/** The verdict of the checks that need no list and no network. */
export type CheapVerdict = { ok: true } | { ok: false; reason: Extract<PasswordRejectionReason, 'too_short' | 'too_long' | 'context'>; message: string };

export interface PasswordPolicy {
  /** Every rule, for a password being set: loads the blocklist on first use. */
  check(password: string, context: PasswordContext): Promise<PasswordVerdict>;
  /**
   * Length and context words only: no blocklist, no network, microseconds. Login uses it to
   * count accounts whose existing password the rules would now refuse; it never refuses a login.
   */
  checkCheap(password: string, context: PasswordContext): CheapVerdict;
  readonly minLength: number;
  readonly maxLength: number;
}

export interface PasswordPolicyOptions {
  /** Characters that count (normalise.ts `countedLength`), at least MIN_LENGTH_FLOOR. */
  minLength: number;
  /** Code points after NFKC; at least 64, and at most a quarter of maxBytes so the hasher's bound is never the one that refuses. */
  maxLength?: number;
  /** The hasher's bound in UTF-8 bytes, before and after NFKC (packages/passlane/src/policy.ts). */
  maxBytes?: number;
  serviceName?: string;
  /** Absent where no password is set (the login function): `check` then throws BlocklistUnavailableError. */
  blocklist?: () => Promise<Blocklist>;
  breachCheck?: { check: BreachCheck; failClosed: boolean };
}

export function createPasswordPolicy(options: PasswordPolicyOptions): PasswordPolicy {
  const maxBytes = options.maxBytes ?? DEFAULT_PASSWORD_RULES.maxBytes;
  const maxLength = options.maxLength ?? Math.min(DEFAULT_MAX_LENGTH, Math.floor(maxBytes / 4));
  const { minLength } = options;
  if (!Number.isInteger(minLength) || minLength < MIN_LENGTH_FLOOR) throw new RangeError(`minLength must be an integer of at least ${MIN_LENGTH_FLOOR}`);
  if (!Number.isInteger(maxLength) || maxLength < 64 || maxLength < minLength || maxLength * 4 > maxBytes) {
    throw new RangeError('maxLength must be at least 64 and minLength, and fit the byte bound at 4 bytes a character');
  }
  const service = serviceWords(options.serviceName);

  function checkCheap(password: string, context: PasswordContext): CheapVerdict {
    // The raw bound first, before normalising: an absurdly long input costs a length read.
    if (password.length > maxBytes || utf8Length(password) > maxBytes) return reject('too_long');
    const normalised = normalisePassword(password);
    // Every code point is hashed and stored, invisible ones too: the maximum counts them all.
    if (codePointCount(normalised) > maxLength) return reject('too_long');
    const counted = countedForm(normalised);
    const length = countedLength(counted);
    if (length < minLength) return reject('too_short', { short: shortDetail(normalised, counted, length) });
    const found = findContextWord(foldCounted(counted), [...emailWords(context.email), ...service]);
    if (found !== undefined) return reject('context', { source: found.source });
    return { ok: true };
  }

  function reject<R extends PasswordRejectionReason>(reason: R, detail: { source?: ContextWordSource; short?: ShortDetail } = {}): { ok: false; reason: R; message: string } {
    return { ok: false, reason, message: rejectionMessage(reason, { minLength, maxLength, ...detail }) };
  }

  return {
    minLength,
    maxLength,
    checkCheap,
    async check(password, context) {
      const cheap = checkCheap(password, context);
      if (!cheap.ok) return cheap;
      if (options.blocklist === undefined) throw new BlocklistUnavailableError('this host holds no password blocklist, so it cannot check a new password');
      const blocklist = await options.blocklist();
      if (await blocklist.has(password)) return reject('common');
      if (options.breachCheck === undefined) return { ok: true, breachCheck: 'off' };
      const result = await options.breachCheck.check.check(password);
      if (result.status === 'breached') return reject('breached');
      if (result.status === 'not_found') return { ok: true, breachCheck: 'passed' };
      if (options.breachCheck.failClosed) throw new BreachCheckUnavailableError('the breach check did not answer', { cause: result.cause });
      return { ok: true, breachCheck: 'unavailable' };
    },
  };
}

function shortDetail(normalised: string, counted: string, length: number): ShortDetail {
  if (counted === '') return normalised === '' ? 'short' : 'invisible';
  if (length === 0) return 'spaces';
  return counted === normalised ? 'short' : 'uncounted';
}

const UNCOUNTED_KINDS = 'Invisible characters (such as zero-width spaces), control characters and accents with no letter under them';

/** What the person choosing the password reads: what is wrong and what to do, never the password itself. */
export function rejectionMessage(
  reason: PasswordRejectionReason,
  { minLength, maxLength, source, short }: { minLength: number; maxLength: number; source?: ContextWordSource | undefined; short?: ShortDetail | undefined },
): string {
  switch (reason) {
    case 'too_short':
      switch (short) {
        case 'spaces':
          return `Spaces count towards the length only beside other characters, and this password holds nothing else. Use at least ${minLength} characters, not all of them spaces.`;
        case 'invisible':
          return `${UNCOUNTED_KINDS} do not count towards the length, and this password holds nothing else. Use at least ${minLength} characters.`;
        case 'uncounted':
          return `Use at least ${minLength} characters. ${UNCOUNTED_KINDS} do not count.`;
        default:
          return `Use at least ${minLength} characters. A few unrelated words make a long password that is easy to remember.`;
      }
    case 'too_long':
      return `Use at most ${maxLength} characters.`;
    case 'common':
      return 'This password is on a list of commonly used passwords, which attackers try first. Choose a different one.';
    case 'breached':
      return 'This password has appeared in a data breach, so attackers will try it. Choose one you have not used anywhere else.';
    case 'context':
      return source === 'service'
        ? "The password contains this service's name, which attackers try first. Choose one without it."
        : 'The password contains the name part of your email address, which attackers try first. Choose one without it.';
  }
}
