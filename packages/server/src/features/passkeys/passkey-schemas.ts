import * as v from 'valibot';
import { SESSIONS_ENDED } from '../mfa/mfa-schemas.js';
import { PASSKEY_LIMITS } from './settings.js';
import { AuthenticationResponse, RegistrationResponse } from '../../webauthn/webauthn-schemas.js';


const NAME_MESSAGE = `name must be 1 to ${PASSKEY_LIMITS.nameChars} characters on one line`;
const name = v.pipe(
  v.string(NAME_MESSAGE),
  v.nonEmpty(NAME_MESSAGE),
  v.maxLength(PASSKEY_LIMITS.nameChars, NAME_MESSAGE),
  // One line without control characters: it is shown in lists and mails. (No `u` flag: JSON Schema has none.)
  // eslint-disable-next-line no-control-regex
  v.regex(/^[^\x00-\x1f\x7f]*$/, NAME_MESSAGE),
  v.description('A name for its owner, such as "Laptop" or "Phone".'),
);

/** POST /passkeys/registration's body. */
export const PasskeyRegistration = v.object({
  response: v.pipe(RegistrationResponse, v.description('The browser\'s `credential.toJSON()` after `navigator.credentials.create()` with the options.')),
  name: v.optional(name),
});

/** PATCH /passkeys/{id}'s body. */
export const PasskeyRename = v.object({ name });

/** POST /passkey/login's body. */
export const PasskeyLoginRequest = v.object({
  response: v.pipe(AuthenticationResponse, v.description('The browser\'s `credential.toJSON()` after `navigator.credentials.get()` with the options.')),
  // As at POST /login: any value is taken, and only a string is a device token.
  deviceToken: v.optional(v.pipe(v.unknown(), v.metadata({ type: 'string' }), v.description('The `deviceToken` an earlier login answered, for clients that keep no cookies.'))),
});

/** A passkey as listed (passkey-view.ts). */
export const Passkey = v.object({
  id: v.pipe(v.string(), v.description('The credential id (base64url): the path parameter of PATCH and DELETE.')),
  name: v.string(),
  createdAt: v.pipe(v.string(), v.description('ISO 8601.')),
  lastUsedAt: v.pipe(v.nullable(v.string()), v.description('ISO 8601; null until its first login.')),
  deviceType: v.pipe(v.picklist(['singleDevice', 'multiDevice']), v.description('`multiDevice`: synced (backup eligible), `singleDevice`: bound to one authenticator.')),
  backedUp: v.boolean(),
});

export const PasskeyList = v.object({ passkeys: v.array(Passkey) });
export const PasskeyAnswer = v.object({ passkey: Passkey });
export const PasskeyRegistered = v.object({
  passkey: Passkey,
  recoveryCodes: v.optional(v.pipe(v.array(v.string()), v.description("Only when the passkey is the account's first factor: 10 recovery codes, shown this once."))),
  sessionsEnded: SESSIONS_ENDED,
});
