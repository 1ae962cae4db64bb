import type { AccountEvent } from '../../events/account-event.js';
import type { Outbox, StoredEvent } from '../../storage/outbox-delivery-store.js';
import type { EventDeliveryDependencies } from './dependencies.js';
import { EventDeliveryError, type EventSink } from './event-sink.js';
import { retryDelayMs } from './retry-delay.js';

/**
 * `delivered`: the outbox is empty now (every event went to every sink, or was dead-lettered);
 * `nothing`: there was no outbox; `leased`: another deliverer holds it (or took it over midway);
 * `waiting`: its head's retry is not due yet; `failed`: a sink refused the head, which waits for
 * its retry (the events behind it too: order per account).
 */
export type DeliveryOutcome = 'delivered' | 'nothing' | 'leased' | 'waiting' | 'failed';

/**
 * Delivers an account's outbox, oldest event first (features/events/README.md): under a lease,
 * so one deliverer at a time; the head goes to every sink that does not have it yet, and leaves
 * the outbox only when all have it; a refusal records the attempt, sets the retry (backoff with
 * jitter) and stops, so no later event of the account overtakes it; a sink that refused the same
 * event `maxAttempts` times gets it dead-lettered (kept, counted) and the account moves on.
 * At least once: a crash after a sink took the event and before the write that records it sends
 * it again; receivers deduplicate by the event's id. Storage failures are thrown as they are (the
 * lease runs out and the next run resumes).
 */
export async function deliverAccountEvents(deps: EventDeliveryDependencies, accountId: string): Promise<DeliveryOutcome> {
  // With no sink every head would count as delivered to all of them: the events would be dropped.
  if (deps.sinks.length === 0) throw new RangeError('deliverAccountEvents needs at least one sink');
  const owner = `dlv_${crypto.randomUUID()}`;
  const claim = await deps.outbox.claim(accountId, owner, deps.now().getTime(), deps.settings.leaseMs);
  if (claim.kind !== 'claimed') return claim.kind;
  let outbox: Outbox = claim.outbox;
  let held = true;
  try {
    for (;;) {
      if (outbox.events.length === 0) {
        if (await deps.outbox.deleteIfEmpty(accountId, owner)) {
          held = false;
          return 'delivered';
        }
        // An append came after the last pop: its event is delivered too (the claim renews the caller's own lease).
        const again = await deps.outbox.claim(accountId, owner, deps.now().getTime(), deps.settings.leaseMs);
        if (again.kind !== 'claimed') {
          held = false;
          return again.kind === 'nothing' ? 'delivered' : 'leased';
        }
        outbox = again.outbox;
        continue;
      }
      const head = outbox.events[0]!;
      const failure = await deliverHead(deps, outbox, head);
      if (failure !== undefined) {
        const recorded = await deps.outbox.recordAttempt(accountId, owner, head.id, failure, leaseUntil(deps));
        if (!recorded) held = false;
        return recorded ? 'failed' : 'leased';
      }
      const next = await deps.outbox.pop(accountId, owner, head.id, leaseUntil(deps));
      if (next === undefined) {
        // The lease was taken over (it ran out while a sink was slow): the new holder goes on.
        held = false;
        return 'leased';
      }
      outbox = next;
    }
  } finally {
    // A lease left behind only delays the next run until it runs out: not worth hiding the error in flight.
    if (held) await deps.outbox.release(accountId, owner).catch((error: unknown) => deps.log.warn('event lease not released', { accountId, error: error instanceof Error ? error.name : 'unknown' }));
  }
}

/**
 * The head to each sink that lacks it. Undefined when every sink has it (or has it dead-lettered);
 * else the progress to record: who has it, the attempt's count, when to try again, the error.
 */
async function deliverHead(deps: EventDeliveryDependencies, outbox: Outbox, head: StoredEvent): Promise<{ headDone: string[]; headAttempts: number; nextAttemptAt: number; lastError: string } | undefined> {
  const done = new Set(outbox.headDone);
  const attempts = outbox.headAttempts + 1;
  const event = parseEvent(head);
  let lastError: string | undefined;
  for (const sink of deps.sinks) {
    if (done.has(sink.name)) continue;
    const error = event === undefined ? 'the stored event is unreadable (its data is not JSON)' : await attempt(sink, event);
    if (error === undefined) {
      done.add(sink.name);
      await deps.outbox.countDelivered(sink.name);
      continue;
    }
    const now = deps.now();
    await deps.outbox.countFailure(sink.name, error, now);
    // An unreadable event will never be taken: dead-lettered at once rather than retried for hours.
    if (attempts >= deps.settings.maxAttempts || event === undefined) {
      await deps.outbox.deadLetter({ sink: sink.name, event: head, error, attempts, deadLetteredAt: now, expiresAt: Math.floor(now.getTime() / 1000) + deps.settings.deadLetterDays * 86_400 });
      deps.log.warn('event dead-lettered', { sink: sink.name, eventId: head.id, type: head.type, accountId: head.accountId, attempts, error });
      done.add(sink.name);
      continue;
    }
    deps.log.warn('event delivery failed', { sink: sink.name, eventId: head.id, type: head.type, accountId: head.accountId, attempts, error });
    lastError = error;
  }
  if (lastError === undefined) return undefined;
  return {
    headDone: deps.sinks.map((sink) => sink.name).filter((name) => done.has(name)),
    headAttempts: attempts,
    nextAttemptAt: deps.now().getTime() + retryDelayMs(attempts, deps.settings, deps.random),
    lastError,
  };
}

/** Undefined when the sink took it; else what went wrong, safe to store and show. */
async function attempt(sink: EventSink, event: AccountEvent): Promise<string | undefined> {
  try {
    await sink.deliver(event);
    return undefined;
  } catch (error) {
    // A sink's own words only when it is ours (EventDeliveryError.detail is safe); anything else by its name.
    return error instanceof EventDeliveryError ? error.detail : `unexpected ${error instanceof Error ? error.name : 'failure'}`;
  }
}

function parseEvent(stored: StoredEvent): AccountEvent | undefined {
  try {
    return { id: stored.id, type: stored.type, time: stored.time, accountId: stored.accountId, data: JSON.parse(stored.data) } as AccountEvent;
  } catch {
    return undefined;
  }
}

function leaseUntil(deps: EventDeliveryDependencies): number {
  return deps.now().getTime() + deps.settings.leaseMs;
}
