import * as v from 'valibot';

/**
 * The WebAuthn JSON shapes passlane reads (a browser's `credential.toJSON()`), checked where
 * passlane uses a field and bounded in size; other fields pass as they are (looseObject), for
 * @simplewebauthn to read or ignore. A credential id is at most 1023 bytes (WebAuthn §5.4.3's
 * limit), 1364 characters of base64url.
 */
const base64url = (name: string, max: number, description: string) =>
  v.pipe(
    v.string(`${name} must be a base64url string`),
    v.nonEmpty(`${name} must be a non-empty base64url string`),
    v.maxLength(max, `${name} must be at most ${max} characters`),
    v.regex(/^[A-Za-z0-9_-]+$/, `${name} must be base64url (A-Z, a-z, 0-9, "-", "_"; no padding)`),
    v.description(description),
  );

const CREDENTIAL_ID_CHARS = 1364;
const credentialId = (name: string) => base64url(name, CREDENTIAL_ID_CHARS, 'The credential id (base64url).');
const publicKeyType = v.literal('public-key', 'type must be "public-key"');
const clientDataJSON = base64url('response.clientDataJSON', 4096, 'The client data (JSON, base64url): the challenge and the origin, as the browser saw them.');
const extensionResults = v.optional(v.looseObject({}), {});

/** A new credential (RegistrationResponseJSON). */
export const RegistrationResponse = v.looseObject({
  id: credentialId('response.id'),
  rawId: credentialId('response.rawId'),
  type: publicKeyType,
  response: v.looseObject({
    clientDataJSON,
    attestationObject: base64url('response.attestationObject', 8192, 'The attestation object (CBOR, base64url): the credential, its public key and flags.'),
    transports: v.optional(
      v.pipe(v.array(v.pipe(v.string(), v.maxLength(32)), 'response.transports must be a list of strings'), v.maxLength(10, 'response.transports has at most 10 entries')),
    ),
  }),
  clientExtensionResults: extensionResults,
});

/** An assertion (AuthenticationResponseJSON). */
export const AuthenticationResponse = v.looseObject({
  id: credentialId('response.id'),
  rawId: credentialId('response.rawId'),
  type: publicKeyType,
  response: v.looseObject({
    clientDataJSON,
    authenticatorData: base64url('response.authenticatorData', 4096, 'The authenticator data (base64url): RP ID hash, flags, counter.'),
    signature: base64url('response.signature', 2048, 'The signature over the authenticator data and the client data hash (base64url).'),
    userHandle: v.optional(base64url('response.userHandle', 128, 'The user handle the authenticator stored with a discoverable credential (base64url).')),
  }),
  clientExtensionResults: extensionResults,
});

/** PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON, as @simplewebauthn makes them: for the browser's create() and get(). */
export const CreationOptions = v.pipe(
  v.looseObject({ challenge: v.string(), rp: v.looseObject({ id: v.string(), name: v.string() }), user: v.looseObject({ id: v.string(), name: v.string(), displayName: v.string() }) }),
  v.description('PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3): pass to `PublicKeyCredential.parseCreationOptionsFromJSON()`.'),
);
export const RequestOptions = v.pipe(
  v.looseObject({ challenge: v.string(), rpId: v.string(), userVerification: v.string() }),
  v.description('PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3): pass to `PublicKeyCredential.parseRequestOptionsFromJSON()`.'),
);
