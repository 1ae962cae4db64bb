import type { Actor } from '../../accounts/audit-events.js';
import type { ChangedBy } from '../../events/account-event.js';

/** Who made a change, as an account event names them: the owner, or the operator by their identity (never a secret). */
export function changedBy(actor: Actor): ChangedBy {
  return actor.kind === 'operator' ? `operator:${actor.id}` : 'owner';
}
