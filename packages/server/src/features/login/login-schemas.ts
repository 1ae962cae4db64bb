import * as v from 'valibot';
import { emailField, passwordField } from '../../accounts/request-fields.js';
import { scopeField, seconds } from '../sessions/session-schemas.js';

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
