import * as v from 'valibot';
import { canonicalEmail } from '../../accounts/canonical-email.js';
import { checkedBy, stringField } from '../../accounts/request-fields.js';

/** A link's token as the app posts it: anything but a string is no token, refused as `invalid_token` by the use case. */
function linkToken(description: string) {
  return v.fallback(v.pipe(v.string(), v.description(description)), '');
}

/** POST /email/change's body. */
export const EmailChangeRequest = v.object({
  newEmail: v.pipe(
    stringField('newEmail'),
    checkedBy<string>(canonicalEmail),
    v.metadata({ format: 'email', maxLength: 254 }),
    v.description('The address to move the account to; used in canonical form, as every email (invisible, control or unassigned characters are refused, 400).'),
  ),
});

/** POST /email/change/confirm's body. */
export const EmailChangeConfirmation = v.object({
  token: linkToken("The token of the link mailed to the new address: what follows `#token=`."),
});

/** POST /email/change/undo's body. */
export const EmailChangeUndo = v.object({
  token: linkToken("The token of the old address's \"this wasn't me\" link: what follows `#token=`."),
});

/** POST /email/change/undo's answer. */
export const EmailChangeUndone = v.pipe(
  v.strictObject({
    emailRestored: v.pipe(
      v.boolean(),
      v.description('True: the old address is the account\'s again. False: it has another account now; this one is disabled until an operator sorts it out.'),
    ),
  }),
  v.description('The change undone: every session ended, the password locked until a reset (its link mailed to the old address when it was restored).'),
);
