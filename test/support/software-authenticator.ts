/**
 * A software WebAuthn authenticator for tests: what a browser and a platform authenticator
 * answer to registration and authentication options, in the JSON shapes of `credential.toJSON()`.
 * ES256 keys from Web Crypto, attestation "none", authenticatorData with the flags UP, UV, BE,
 * BS (and AT at registration), a signature counter, and clientDataJSON with the origin the test
 * chooses (the browser's page). Every field is built here from the specification (WebAuthn
 * Level 3 §6.1, §6.5, §8.7), not with the server's library, so a test sees what a browser sends.
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';
import { concatBytes } from '../../packages/passlane/src/encoding.js';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

export interface SoftwareCredential {
  id: string;
  rpId: string;
  userHandle: string;
  keys: CryptoKeyPair;
  counter: number;
  backupEligible: boolean;
  backedUp: boolean;
}

export interface AuthenticatorOptions {
  /** The page's origin, as the browser writes it in clientDataJSON. */
  origin: string;
  /** A synced passkey (BE and BS set, no counter) instead of a device-bound one (counter counts up). */
  synced?: boolean;
  /** The authenticator verifies its user (PIN, biometric): the UV flag. Default true. */
  userVerification?: boolean;
}

/** What one answer may change (to make it wrong): the origin, the RP ID hashed, the counter, the flags. */
export interface AnswerOverrides {
  origin?: string;
  rpId?: string;
  counter?: number;
  backupEligible?: boolean;
  userVerification?: boolean;
  credentialId?: string;
}

export function softwareAuthenticator(options: AuthenticatorOptions) {
  const credentials: SoftwareCredential[] = [];
  const uv = options.userVerification ?? true;

  return {
    credentials,

    /** navigator.credentials.create(): a new ES256 credential, attestation "none". */
    async register(creation: PublicKeyCredentialCreationOptionsJSON, overrides: AnswerOverrides = {}): Promise<RegistrationResponseJSON> {
      // `credentialId`: the same credential again (a registration of one credential on a second account).
      const again = credentials.find((c) => c.id === overrides.credentialId);
      const keys = again?.keys ?? ((await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair);
      const rawId = again === undefined ? crypto.getRandomValues(new Uint8Array(32)) : isoBase64URL.toBuffer(again.id);
      const credential: SoftwareCredential = {
        id: isoBase64URL.fromBuffer(rawId),
        rpId: creation.rp.id!,
        userHandle: creation.user.id,
        keys,
        counter: options.synced ? 0 : 1,
        backupEligible: options.synced === true,
        backedUp: options.synced === true,
      };
      const jwk = await crypto.subtle.exportKey('jwk', keys.publicKey);
      const cose = isoCBOR.encode(
        new Map<number, number | Uint8Array>([
          [1, 2], // kty: EC2
          [3, -7], // alg: ES256
          [-1, 1], // crv: P-256
          [-2, isoBase64URL.toBuffer(jwk.x!)],
          [-3, isoBase64URL.toBuffer(jwk.y!)],
        ]),
      );
      const attested = concatBytes(new Uint8Array(16), uint16(rawId.length), rawId, cose);
      const authData = concatBytes(
        await sha256(new TextEncoder().encode(overrides.rpId ?? credential.rpId)),
        new Uint8Array([flags(credential, uv, overrides) | FLAG_AT]),
        uint32(overrides.counter ?? credential.counter),
        attested,
      );
      const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never);
      credentials.push(credential);
      return {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key',
        response: {
          clientDataJSON: clientData('webauthn.create', creation.challenge, overrides.origin ?? options.origin),
          attestationObject: isoBase64URL.fromBuffer(attestationObject),
          transports: ['internal', 'hybrid'],
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },

    /** navigator.credentials.get(): an assertion of an allowed credential, or (none listed) the last one for the RP. */
    async authenticate(request: PublicKeyCredentialRequestOptionsJSON, overrides: AnswerOverrides = {}): Promise<AuthenticationResponseJSON> {
      const allowed = request.allowCredentials?.map((credential) => credential.id);
      const credential = [...credentials]
        .reverse()
        .find((c) => (overrides.credentialId ?? allowed?.[0] ?? c.id) === c.id && (allowed === undefined || allowed.includes(c.id)) && c.rpId === request.rpId);
      if (credential === undefined) throw new Error('no credential of this authenticator is allowed');
      if (!credential.backupEligible) credential.counter += 1;
      const authData = concatBytes(
        await sha256(new TextEncoder().encode(overrides.rpId ?? credential.rpId)),
        new Uint8Array([flags(credential, uv, overrides)]),
        uint32(overrides.counter ?? credential.counter),
      );
      const clientDataJSON = clientData('webauthn.get', request.challenge, overrides.origin ?? options.origin);
      const signed = concatBytes(authData, await sha256(isoBase64URL.toBuffer(clientDataJSON)));
      const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, credential.keys.privateKey, signed));
      return {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key',
        response: {
          clientDataJSON,
          authenticatorData: isoBase64URL.fromBuffer(authData),
          signature: isoBase64URL.fromBuffer(derSignature(raw)),
          userHandle: credential.userHandle,
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
  };
}

function flags(credential: SoftwareCredential, uv: boolean, overrides: AnswerOverrides): number {
  const eligible = overrides.backupEligible ?? credential.backupEligible;
  return FLAG_UP | ((overrides.userVerification ?? uv) ? FLAG_UV : 0) | (eligible ? FLAG_BE : 0) | (eligible && credential.backedUp ? FLAG_BS : 0);
}

function clientData(type: string, challenge: string, origin: string): string {
  return isoBase64URL.fromUTF8String(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

async function sha256(data: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(data)));
}

function uint16(value: number): Uint8Array {
  return new Uint8Array([(value >>> 8) & 0xff, value & 0xff]);
}

function uint32(value: number): Uint8Array {
  return new Uint8Array([(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
}

/** Web Crypto signs ECDSA as r||s (IEEE P1363); WebAuthn's ES256 signatures are ASN.1 DER (§6.5.5). */
function derSignature(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  const integer = (bytes: Uint8Array) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const trimmed = bytes.slice(start);
    const body = trimmed[0]! & 0x80 ? concatBytes(new Uint8Array([0]), trimmed) : trimmed;
    return concatBytes(new Uint8Array([0x02, body.length]), body);
  };
  const sequence = concatBytes(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concatBytes(new Uint8Array([0x30, sequence.length]), sequence);
}
