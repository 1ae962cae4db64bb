import * as v from 'valibot';
import { emailField, passwordField } from '../../accounts/request-fields.js';
import { scopeField, seconds } from '../sessions/session-schemas.js';
import { AuthenticationResponse, RequestOptions } from '../../webauthn/webauthn-schemas.js';

/** POST /login's body. */
export const LoginRequest = v.object({
  email: emailField,
  password: passwordField,
  // Any value is taken, and only a string is a device token (device-cookie.ts): a client's stale field never fails a login.
  deviceToken: v.optional(
    v.pipe(
      v.unknown(),
      v.metadata({ type: 'string' }),
      v.description('The `deviceToken` an earlier login of this account answered, for clients that keep no cookies.'),
    ),
  ),
});


/** A good login's answer (login.ts `LoginResponse`). */
export const LoggedIn = v.object({
  accessToken: v.pipe(v.string(), v.description('A JWT carrying the session id (`sid`) and `email_verified`; send as `Authorization: Bearer <accessToken>`.')),
  tokenType: v.literal('Bearer'),
  expiresIn: seconds('Seconds until the access token expires.'),
  scope: scopeField,
  refreshToken: v.pipe(v.string(), v.description('Opaque; spend it at `POST /token` for a new pair. Keep it secret: it outlives the access token.')),
  refreshExpiresIn: seconds("Seconds until the refresh token expires unless spent (the idle timeout, within the session's lifetime)."),
  deviceToken: v.pipe(v.string(), v.description('Opaque; present it at the next logins of this account (the cookie does it for browsers). The one presented, or a new one.')),
  deviceExpiresIn: seconds('Seconds the device is remembered unless a good login presents it before.'),
});

/** `401 mfa_required`'s body: the error, and what POST /login/mfa takes to finish the login. */
export const MfaRequired = v.object({
  error: v.object({ code: v.string(), message: v.string() }),
  mfaToken: v.optional(v.pipe(v.string(), v.description('With `mfa_required`: opaque; POST it to `/login/mfa` with a code within 5 minutes.'))),
  methods: v.optional(
    v.pipe(v.array(v.string()), v.description('With `mfa_required`: the second factors the account offers (`totp`, `webauthn`, `recovery_code`), an open list.')),
  ),
  webauthn: v.optional(
    v.pipe(RequestOptions, v.description("With `webauthn` among the methods: the request options for `navigator.credentials.get()` (the account's passkeys allowed); answer with `method: \"webauthn\"`.")),
  ),
});

export const CODE_REQUIRED = 'code must be a non-empty string';

/**
 * POST /login/mfa's body: the password step's token and a second factor, `code` for `totp` and
 * `recovery_code`, `response` for `webauthn` (login-mfa-route.ts asks for the one `method` names:
 * a route's body is one object schema).
 */
export const MfaLoginRequest = v.object({
  mfaToken: v.pipe(v.string('mfaToken must be a string'), v.nonEmpty('mfaToken must be a non-empty string'), v.description('The `mfaToken` of the `401 mfa_required` answer.')),
  method: v.pipe(
    v.picklist(['totp', 'recovery_code', 'webauthn'], 'method must be "totp", "recovery_code" or "webauthn"'),
    v.description('`totp`: a code of the authenticator app; `recovery_code`: one of the recovery codes (each works once); `webauthn`: a passkey\'s assertion.'),
  ),
  code: v.optional(
    v.pipe(
      v.string(CODE_REQUIRED),
      v.nonEmpty(CODE_REQUIRED),
      v.maxLength(64, 'code must be at most 64 characters'),
      v.description('With `totp` or `recovery_code`: the 6-digit code of the authenticator app, or a recovery code.'),
    ),
  ),
  response: v.optional(
    v.pipe(AuthenticationResponse, v.description("With `webauthn`: the browser's `credential.toJSON()` after `navigator.credentials.get()` with the `webauthn` options of `mfa_required`.")),
  ),
  deviceToken: LoginRequest.entries.deviceToken,
});
