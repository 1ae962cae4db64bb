import { InvalidRequestError } from './errors.js';

/** RFC 5321 limits, on the canonical form; a pragmatic shape check, since only a confirmation mail can prove an address. */
const MAX_EMAIL_LENGTH = 254;
const MAX_LOCAL_PART_LENGTH = 64;
const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
/** Typed forms can be longer than their canonical form (decomposed accents, full-width forms); past this no work is done. */
const MAX_TYPED_LENGTH = 4 * MAX_EMAIL_LENGTH;
/**
 * Invisible (soft hyphen, zero-width space and joiners, ...), control, lone surrogate and
 * unassigned code points. Unassigned ones because their case and NFKC mappings depend on the
 * runtime's Unicode version: refused, no two hosts can key one address two ways.
 */
const INVISIBLE_OR_CONTROL = /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cs}\p{Cn}]/u;
/** Controls are refused before the domain is looked at: ASCII here is printable ASCII. */
const ASCII_ONLY = /^[ -~]*$/;
/** What the URL parser reads as the host's end, a port or an escape: `ada@example.com:25` or `ada@gm%61il.com` would be someone else's mailbox. */
const URL_DELIMITERS = /[/\\?#:%]/;

/**
 * The address mail is delivered to, as the one key of an account: its item, its fingerprint, its
 * limits and its mails all use this form, so however an address is typed it is one account
 * (packages/server/src/accounts/EMAILS.md says why each step). Trimmed; refused if it holds an invisible,
 * control or unassigned code point (mail goes to the mailbox without it, so keeping it made a
 * second account, and dropping it would hide what was typed); then NFKC and lower case, so
 * full-width letters, digits and `＠` are the ASCII ones; the domain as the URL parser's UTS #46
 * processing leaves it: A-labels, the ASCII form DNS and SMTP deliver to and the form the mail
 * layer sends to. An ASCII address with a host name for its domain keeps the key
 * `trim().toLowerCase()` gave it before. Throws InvalidRequestError (`invalid_request`, field
 * `email`). Idempotent.
 */
export function canonicalEmail(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidRequestError('email must be a string', 'email');
  const typed = value.trim();
  if (typed.length > MAX_TYPED_LENGTH) throw notAnAddress();
  if (INVISIBLE_OR_CONTROL.test(typed)) throw new InvalidRequestError('email contains an invisible, control or unassigned character', 'email');
  // NFKC again after lower-casing: a few lower-case mappings leave a string that is not NFKC.
  const folded = typed.normalize('NFKC').toLowerCase().normalize('NFKC');
  const at = folded.lastIndexOf('@');
  const local = folded.slice(0, Math.max(at, 0));
  const domain = at < 0 ? undefined : deliveryDomain(folded.slice(at + 1));
  if (domain === undefined) throw notAnAddress();
  const email = `${local}@${domain}`;
  if (email.length > MAX_EMAIL_LENGTH || local.length > MAX_LOCAL_PART_LENGTH || !EMAIL_SHAPE.test(email) || INVISIBLE_OR_CONTROL.test(email)) {
    throw notAnAddress();
  }
  return email;
}

/**
 * The domain as the URL parser's UTS #46 processing leaves it (A-labels, lower case): what the
 * mail layer's transport sends to (packages/server/src/mail/mime.ts). Undefined when that parser refuses it
 * (invalid punycode, joiners out of context, forbidden code points), when it holds a delimiter,
 * or when it is ASCII and the parser would change more than its case (`0x7f.1` is read as
 * 127.0.0.1): an ASCII key is never rewritten, so every ASCII account keeps the key it has.
 */
function deliveryDomain(domain: string): string | undefined {
  if (URL_DELIMITERS.test(domain)) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`http://${domain}/`).hostname;
  } catch {
    return undefined;
  }
  return ASCII_ONLY.test(domain) && hostname !== domain ? undefined : hostname;
}

function notAnAddress(): InvalidRequestError {
  return new InvalidRequestError('email is not a valid address', 'email');
}
