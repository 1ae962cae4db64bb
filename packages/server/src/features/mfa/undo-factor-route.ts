import { NO_STORE, TEMPORARILY_UNAVAILABLE } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';
import type { FactorUndoServices } from './dependencies.js';
import { FactorUndo, FactorUndone } from './mfa-schemas.js';
import { undoFactor } from './undo-factor.js';

/** POST /mfa/undo { token } -> 200 { factorRemoved }: the "this wasn't me" link of a factor's mail. */
export const undoFactorRoute = defineRoute<FactorUndoServices, typeof FactorUndo>({
  name: 'mfa_undo',
  method: 'POST',
  path: '/mfa/undo',
  body: { name: 'FactorUndo', schema: FactorUndo },
  doc: {
    operationId: 'undoFactor',
    summary: "Undo a factor just added, with the token of its mail's \"this wasn't me\" link",
    description: `The mailbox is the proof: no session is needed. Removes the factor the mail was about (TOTP
enabled or a passkey registered; not the account's other factors), ends every session and
forgets every known device of the account, and makes the password unusable until it is reset:
a login with it answers \`invalid_credentials\`. A reset link is mailed now
(\`<PASSLANE_APP_URL>/reset-password#token=<token>\`), replacing any outstanding one. The link
works for 7 days, once; each factor's mail carries its own, and a password change or reset does
not void it.
`,
    security: 'none',
    answers: {
      200: { description: 'Undone; a reset link is on its way.', headers: { 'Cache-Control': NO_STORE }, body: { name: 'FactorUndone', schema: FactorUndone } },
      400: {
        description: `\`invalid_token\`: the token is missing, malformed, unknown, already used or expired.
\`invalid_request\`: the body is not an object. \`invalid_json\`: the body is not valid UTF-8 JSON.
`,
        codes: ['invalid_token', 'invalid_request', 'invalid_json'],
      },
      503: TEMPORARILY_UNAVAILABLE,
    },
  },
  handle: async ({ body, services }) => jsonResponse(200, await undoFactor(await services.factorUndo(), { token: body.token })),
});
