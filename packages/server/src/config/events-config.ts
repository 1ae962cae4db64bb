import type { AccountEventSettings } from '../events/account-events.js';
import { oneOf, type Env } from './env.js';

/**
 * Account events (src/events/README.md): PASSLANE_EVENTS `on` records them, in the same write as
 * each change of an account (storage/event-outbox.ts); `off`, the default, records none and every
 * write is what it was without events.
 */
export function readEventsConfig(env: Env): AccountEventSettings {
  return { enabled: oneOf(env, 'PASSLANE_EVENTS', ['on', 'off']) === 'on' };
}
