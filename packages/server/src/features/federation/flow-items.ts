import * as v from 'valibot';
import { StorageRecordInvalidError } from '../../storage/errors.js';

/**
 * What each step of a sign-in keeps in its item (federation-flow-store.ts, `payload`): written
 * and read here only, checked on the way back like any stored record.
 */

/** An authorization request waiting for the provider's callback. */
export const PendingAuthorization = v.object({
  provider: v.string(),
  /** SHA-256 of the secret in the browser's cookie: the callback must come from that browser. */
  browserHash: v.string(),
  /** Ours to the provider (PKCE and OIDC's nonce). */
  codeVerifier: v.string(),
  nonce: v.optional(v.string()),
  /** Where the app wants the outcome, checked against the allow-list at the start. */
  redirectTo: v.string(),
  /** The app's own PKCE challenge: the app code is redeemed with its verifier. */
  appCodeChallenge: v.string(),
});
export type PendingAuthorization = v.InferOutput<typeof PendingAuthorization>;

/** A provider's proof, waiting for the app to redeem it (POST /oauth/token). */
export const ProvenSignIn = v.object({
  provider: v.string(),
  subject: v.string(),
  email: v.optional(v.string()),
  emailVerified: v.boolean(),
  providerMfa: v.boolean(),
  appCodeChallenge: v.string(),
});
export type ProvenSignIn = v.InferOutput<typeof ProvenSignIn>;

/** An identity whose verified email has an account it is not linked to, waiting for that account's login (POST /identities/link). */
export const PendingLink = v.object({
  provider: v.string(),
  subject: v.string(),
  /** The account the email names, as it was: the link goes to that account only. */
  userId: v.string(),
  email: v.string(),
});
export type PendingLink = v.InferOutput<typeof PendingLink>;

export function readFlowItem<S extends v.GenericSchema>(schema: S, payload: string, record: string): v.InferOutput<S> {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    throw new StorageRecordInvalidError(record);
  }
  const parsed = v.safeParse(schema, json);
  if (!parsed.success) throw new StorageRecordInvalidError(record);
  return parsed.output;
}
