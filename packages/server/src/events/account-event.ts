/**
 * What an account event is, for everyone who makes or delivers one: the use cases that change an
 * account record them (in the same write as the change: ../storage/event-outbox.ts), the delivery
 * (features/events) sends them to EventBridge and to webhooks. The body a receiver gets is this
 * object as JSON; `id` is its idempotency key (the webhook's `webhook-id`, EventBridge's detail.id).
 *
 * Never in `data`: a password, a hash, a token, a secret, a code. Addresses are: a team's own
 * system needs them (they are the account's data, not a log line).
 */
export const ACCOUNT_EVENT_TYPES = [
  'user.registered',
  'email.verified',
  'email.changed',
  'password.changed',
  'password.reset',
  'factor.added',
  'factor.removed',
  'account.disabled',
  'account.enabled',
  'account.deleted',
  'identity.linked',
  'identity.unlinked',
  'session.started',
] as const;

export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];

/** Sign-in events: recorded only when a deployment turns them on too (PASSLANE_EVENTS_SIGN_IN; README.md, "Sign-in events"). */
export const SIGN_IN_EVENT_TYPES = ['session.started'] as const satisfies readonly AccountEventType[];

/** Who made a change: the account's owner, its "this wasn't me" link, or an operator (their label). */
export type ChangedBy = 'owner' | 'undo_link' | `operator:${string}` | 'system';

/** What changed, by kind. */
export interface AccountEventData {
  'user.registered': { email: string; method: 'password' | 'federated' | 'migration'; provider?: string };
  'email.verified': { email: string };
  'email.changed': { from: string; to: string; by: ChangedBy };
  'password.changed': { by: ChangedBy };
  'password.reset': { by: ChangedBy };
  'factor.added': { factor: 'totp' | 'passkey'; credentialId?: string };
  'factor.removed': { factor: 'totp' | 'passkey'; credentialId?: string; by: ChangedBy };
  'account.disabled': { by: ChangedBy };
  'account.enabled': { by: ChangedBy };
  'account.deleted': { by: ChangedBy };
  'identity.linked': { provider: string; identityId: string };
  'identity.unlinked': { provider: string; identityId: string; by: ChangedBy };
  /** A login's new session: its public id (the access tokens' `sid`, never its refresh token), how it authenticated, the tokens' `client_id`. */
  'session.started': { sessionId: string; amr: string[]; clientId?: string };
}

export interface AccountEvent<T extends AccountEventType = AccountEventType> {
  /** `evt_` and 32 hex digits: unique, the receivers' idempotency key. */
  id: string;
  type: T;
  /** When the change was made (ISO 8601, UTC). */
  time: string;
  /** The account's userId (the access token's `sub`): stable across a change of address. */
  accountId: string;
  data: AccountEventData[T];
}

/** A new event, stamped with the caller's clock. */
export function createAccountEvent<T extends AccountEventType>(type: T, accountId: string, data: AccountEventData[T], now: Date): AccountEvent<T> {
  return { id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, type, time: now.toISOString(), accountId, data };
}
