import { sha256 } from '@noble/hashes/sha2.js';
import { utf8 } from 'passlane/encoding';

/** What passlane makes userIds of (register, lazy migration, import without a userId column): random UUIDs. */
const RANDOM_USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The WebAuthn user handle of an account: what an authenticator stores beside a discoverable
 * credential and hands back at every login. WebAuthn asks for random bytes with no personal
 * information (never the email): a random userId's own bytes are that. A userId an import file
 * chose may say something of its owner, so it is given as its SHA-256 instead (fixed, 32 bytes:
 * within the 64 WebAuthn allows).
 */
export function webAuthnUserHandle(userId: string): Uint8Array<ArrayBuffer> {
  return RANDOM_USER_ID.test(userId) ? utf8(userId) : new Uint8Array(sha256(utf8(`passlane-webauthn-user:${userId}`)));
}
