import * as v from 'valibot';

/** POST /oauth/token: the app code from the callback's redirect, with the app's PKCE verifier. */
export const AppCodeRedemption = v.object({
  code: v.pipe(v.string('code must be a string'), v.nonEmpty('code must be a non-empty string'), v.maxLength(128, 'code must be at most 128 characters'), v.description('The `code` the callback added to `redirect_to`: one use, 60 seconds.')),
  // Optional in the schema: a missing verifier spends the code and is refused like a wrong one.
  codeVerifier: v.optional(
    v.pipe(
      v.string('codeVerifier must be a string'),
      v.maxLength(128, 'codeVerifier must be at most 128 characters'),
      v.description('The PKCE verifier (RFC 7636) whose S256 challenge the app gave the start as `code_challenge`.'),
    ),
  ),
});

/** A provider's form post to the callback (`response_mode=form_post`): its parameters, as a query would carry them. */
const parameter = (name: string, description: string) =>
  v.optional(v.pipe(v.string(`${name} must be a string`), v.maxLength(4096, `${name} must be at most 4096 characters`), v.description(description)));

/** The parameters the callback reads; whatever else the provider sends (Apple's `user`) is dropped unread. */
export const CallbackForm = v.object({
  state: parameter('state', 'Ours, from the start: spent here.'),
  code: parameter('code', "The provider's authorization code."),
  error: parameter('error', "The provider's refusal (RFC 6749 §4.1.2.1)."),
  error_description: parameter('error_description', 'Its words.'),
  iss: parameter('iss', 'The issuer (RFC 9207), where the provider sends it.'),
});

export const LinkRequest = v.object({
  linkToken: v.pipe(v.string('linkToken must be a string'), v.nonEmpty('linkToken must be a non-empty string'), v.maxLength(128, 'linkToken must be at most 128 characters'), v.description('From `POST /oauth/token`\'s `identity_link_required` answer: one use, 10 minutes.')),
});

export const Identity = v.object({
  id: v.pipe(v.string(), v.description('For `DELETE /identities/{id}`.')),
  provider: v.pipe(v.string(), v.description('The provider\'s name in this deployment (PASSLANE_OAUTH_PROVIDERS).')),
  subject: v.pipe(v.string(), v.description('The user\'s id at the provider (`sub`; GitHub\'s numeric id).')),
  email: v.optional(v.pipe(v.string(), v.description('The email the provider verified when it was linked.'))),
  linkedAt: v.pipe(v.number(), v.integer(), v.description('When it was linked (epoch seconds).')),
});

export const IdentityList = v.object({ identities: v.array(Identity) });

/** `409 identity_link_required`'s body: the error, and what links the identity after a login of the account. */
export const LinkRequired = v.object({
  error: v.object({ code: v.string(), message: v.string() }),
  linkToken: v.optional(v.pipe(v.string(), v.description('With `identity_link_required`: POST it to `/identities/link` after a login of the account (within 10 minutes).'))),
});
