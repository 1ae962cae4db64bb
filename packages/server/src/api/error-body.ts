import * as v from 'valibot';
import { PASSWORD_REJECTION_REASONS } from '../accounts/audit-events.js';
import type { ErrorCode } from '../accounts/errors.js';
import { SIGNUP_REFUSAL_CODE } from '../hooks/signup-hook.js';
import { ERROR_TABLE, OAUTH_ERROR_CODES } from './error-table.js';
import type { NamedSchema } from './operation-doc.js';

/**
 * Every error's body, `{"error":{"code","message"}}` (responses.ts `errorResponse`), as the API's
 * document shows it: its codes are the error table's. Only the document uses it (no answer is
 * checked against it at run time), so no route bundles it.
 */
export const ERROR_BODY: NamedSchema = {
  name: 'Error',
  schema: v.strictObject({
    error: v.strictObject({
      code: v.picklist(Object.keys(ERROR_TABLE) as ErrorCode[]),
      message: v.pipe(v.string(), v.description('For a person; with `password_rejected`, what to do instead (never the password).')),
      reason: v.optional(
        v.union([
          v.pipe(
            v.picklist(PASSWORD_REJECTION_REASONS),
            v.description(`With \`password_rejected\`: why the new password was refused. \`too_short\` /
\`too_long\`: outside PASSLANE_PASSWORD_MIN_LENGTH (8) to 256 characters (Unicode
code points after NFKC; the minimum counts neither invisible characters, controls
and accents with no letter, nor a password of only spaces); \`common\`: on the
blocklist of the 100,000 most common passwords (case, NFKC and invisible-character
variants too); \`breached\`: in Have I Been Pwned's corpus
(only when PASSLANE_BREACH_CHECK=true); \`context\`: contains the email's local part
or the service's name. No composition rules apply.
`),
          ),
          v.pipe(
            v.string(),
            v.regex(SIGNUP_REFUSAL_CODE),
            v.description("With `signup_refused`: the deployment's sign-up hook's own code for its refusal (packages/server/src/hooks/README.md)."),
          ),
        ]),
      ),
    }),
  }),
};

/**
 * RFC 6749 §5.2's flat error body, `{"error","error_description"}` (responses.ts
 * `oauthErrorResponse`): what a route whose `errorBody` is `oauth` answers (POST /token). Its
 * codes are the error table's `oauth` column.
 */
export const OAUTH_ERROR_BODY: NamedSchema = {
  name: 'OAuthError',
  schema: v.strictObject({
    error: v.pipe(
      v.picklist(OAUTH_ERROR_CODES),
      v.description('RFC 6749 §5.2\'s code (`server_error` and `temporarily_unavailable`: §4.1.2.1\'s, for a failure on our side).'),
    ),
    error_description: v.pipe(v.string(), v.description('For a person: printable ASCII, never a token.')),
  }),
};
