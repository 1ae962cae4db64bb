import type { AccountEventSettings } from '../events/account-events.js';
import { oneOf, type Env } from './env.js';

/**
 * Account events (src/events/README.md): PASSLANE_EVENTS `on` records them, in the same write as
 * each change of an account (storage/event-outbox.ts); `off`, the default, records none and every
 * write is what it was without events. PASSLANE_EVENTS_SIGN_IN `on` adds `session.started` to
 * each login's session write ("Sign-in events": its cost), only while PASSLANE_EVENTS is `on`:
 * that one switch stops all recording, so turning events off never needs a second change (nor
 * stops a login function from starting).
 */
export function readEventsConfig(env: Env): AccountEventSettings {
  const enabled = oneOf(env, 'PASSLANE_EVENTS', ['on', 'off']) === 'on';
  const signIn = oneOf(env, 'PASSLANE_EVENTS_SIGN_IN', ['on', 'off']) === 'on';
  return { enabled, ...(enabled && signIn && { signIn: true }) };
}
