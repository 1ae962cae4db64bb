import * as v from 'valibot';
import { canonicalEmail } from './canonical-email.js';
import { InvalidRequestError } from './errors.js';

/**
 * The request fields the use cases share, as pieces of the routes' body schemas (valibot): each
 * refuses with the message the use cases answered while they read bodies themselves, and the
 * domain's rules stay the use cases' (they apply them again to the typed values).
 */

/**
 * A domain rule as a step of a field's schema: `rule` throws InvalidRequestError for a value it
 * refuses (canonicalEmail does), which becomes the field's issue with the rule's message, so the
 * rule is answered in its place among the body's checks. Any other error it throws is answered
 * as it is.
 */
export function checkedBy<T>(rule: (value: T) => unknown) {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    try {
      rule(dataset.value);
    } catch (error) {
      if (!(error instanceof InvalidRequestError)) throw error;
      addIssue({ message: error.message });
    }
  });
}

/** A field that must be a string: `<name> must be a string` otherwise (a missing one too). */
export function stringField(name: string) {
  return v.string(`${name} must be a string`);
}

/**
 * An account's email (canonical-email.ts): a string that is an address once in canonical form.
 * The document says what the rule enforces (an address of at most 254 characters in that form).
 */
export const emailField = v.pipe(
  stringField('email'),
  checkedBy<string>(canonicalEmail),
  v.metadata({ format: 'email', maxLength: 254 }),
  v.description('Used in canonical form (trimmed, NFKC, lower-cased, the domain in A-labels); invisible, control or unassigned characters are refused (400).'),
);

/**
 * A password being presented (a login's) or set (a registration's): a string. Its byte bound
 * (the hasher's, 1024 bytes in UTF-8) and the password rules are the use cases'.
 */
export const passwordField = v.pipe(
  stringField('password'),
  v.metadata({ minLength: 1 }),
  v.description('At most 1024 bytes in UTF-8; registration also applies the password rules.'),
);
