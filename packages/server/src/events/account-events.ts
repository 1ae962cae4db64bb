import { createAccountEvent, SIGN_IN_EVENT_TYPES, type AccountEvent, type AccountEventData, type AccountEventType } from './account-event.js';

/**
 * What the use cases record account events through: `of` makes the event of a change, to hand to
 * the store's write (storage/event-outbox.ts writes it with the change), or nothing when the
 * deployment records none (PASSLANE_EVENTS off): the store's write is then exactly what it was.
 */
export interface AccountEvents {
  /** Whether events are recorded at all. */
  readonly enabled: boolean;
  /**
   * The event of a change, stamped now, as a list for the store's write; empty when recording is
   * off, and for a sign-in event (`session.started`) unless sign-in events are on too.
   */
  of<T extends AccountEventType>(type: T, accountId: string, data: AccountEventData[T]): AccountEvent<T>[];
}

/** What a use case that changes an account needs to record its events. */
export interface AccountEventDependencies {
  accountEvents: AccountEvents;
}

/** The settings src/config fills (PASSLANE_EVENTS, PASSLANE_EVENTS_SIGN_IN). */
export interface AccountEventSettings {
  enabled: boolean;
  /** Sign-in events too (README.md, "Sign-in events"): only with `enabled`; each login's session write then becomes a transaction. */
  signIn?: boolean;
}

/** Recording as `settings` say, stamped with `now` (the dependencies' clock, so tests that move it move the events' times too). */
export function accountEventRecorder(settings: AccountEventSettings, now: () => Date): AccountEvents {
  if (!settings.enabled) return NO_ACCOUNT_EVENTS;
  const signIn = settings.signIn === true;
  return {
    enabled: true,
    of: (type, accountId, data) => (!signIn && isSignInEvent(type) ? [] : [createAccountEvent(type, accountId, data, now())]),
  };
}

/** Recording off: no event, no outbox write, no transaction. */
export const NO_ACCOUNT_EVENTS: AccountEvents = { enabled: false, of: () => [] };

function isSignInEvent(type: AccountEventType): boolean {
  return (SIGN_IN_EVENT_TYPES as readonly AccountEventType[]).includes(type);
}
