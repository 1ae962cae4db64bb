import { parseArgs } from 'node:util';
import { readEventDeliveryConfig } from '../../config/event-delivery-config.js';
import type { EventDeliverySettings } from '../../features/events/settings.js';
import { eventDeliveryStatus, type EventDeliveryStatus } from '../../features/events/event-delivery-status.js';
import type { EventDeliveryLog } from '../../features/events/dependencies.js';
import { sweepPendingEvents, type SweepResult } from '../../features/events/sweep-pending-events.js';
import { buildEventDelivery, buildEventDeliveryStatus } from '../../wiring/build-event-delivery.js';
import { openBulkTools } from './bulk-tools.js';
import { CommandUsageError, describeFailure, parseCommandArgs, writeLine, type CommandIo } from './command-io.js';
import { formatTable } from './format-table.js';
import { storageHint } from './storage-hint.js';

export const EVENTS_USAGE = `usage: passlane events status [--json]
       passlane events deliver [--follow]
Account events (packages/server/src/features/events/README.md), with the server's settings
(PASSLANE_TABLE, PASSLANE_WEBHOOKS, ...):
status: per sink, the events delivered, the failed attempts, the events dead-lettered and the last
  error; and how many accounts' outboxes still hold events (a Scan of the whole table).
deliver: every pending outbox once, to every webhook; --follow: again every PASSLANE_EVENT_SWEEP_S
  (60 s) until SIGTERM or Ctrl-C, for a host whose server does not deliver (a Scan per sweep).`;

/** `passlane events status|deliver`: the delivery's failures made visible, and a deliverer for hosts with none. */
export async function runEventsCommand(args: string[], io: CommandIo): Promise<number> {
  const options = parseCommandArgs(io, 'events', EVENTS_USAGE, () => parseEventsArgs(args));
  if (options === undefined) return 2;
  const tools = openBulkTools(io, 'events');
  if (tools === undefined) return 2;
  let settings: EventDeliverySettings | undefined;
  try {
    settings = readEventDeliveryConfig(io.env);
  } catch (error) {
    writeLine(io.stderr, `passlane events: ${describeFailure(error)}`);
    tools.client.destroy();
    return 2;
  }
  try {
    if (options.command === 'status') {
      const status = await eventDeliveryStatus(buildEventDeliveryStatus(settings, tools.config.storage, tools.platform));
      if (options.json) writeLine(io.stdout, JSON.stringify(status));
      else printStatus(io, status, settings !== undefined);
      return 0;
    }
    if (settings === undefined || settings.webhooks.length === 0) {
      writeLine(io.stderr, 'passlane events deliver: no webhook to deliver to: set PASSLANE_WEBHOOKS (EventBridge is the events function\'s, on AWS)');
      return 2;
    }
    return await deliver(io, settings, tools, options.follow);
  } catch (error) {
    writeLine(io.stderr, `passlane events ${options.command}: ${describeFailure(error)}`);
    const hint = storageHint(error, tools.config.storage);
    if (hint !== undefined) writeLine(io.stderr, hint);
    return 2;
  } finally {
    tools.client.destroy();
  }
}

interface EventsOptions {
  command: 'status' | 'deliver';
  json: boolean;
  follow: boolean;
}

function parseEventsArgs(args: string[]): EventsOptions {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, follow: { type: 'boolean' } } });
  const [command, ...extra] = positionals;
  if (command !== 'status' && command !== 'deliver') throw new CommandUsageError(command === undefined ? 'status or deliver?' : `unknown events command ${command}`);
  if (extra.length > 0) throw new CommandUsageError(`unexpected argument ${extra[0]}`);
  if (command === 'status' && values.follow) throw new CommandUsageError('--follow is for deliver');
  if (command === 'deliver' && values.json) throw new CommandUsageError('--json is for status');
  return { command, json: values.json ?? false, follow: values.follow ?? false };
}

/**
 * Sweeps once, or (`follow`) until SIGTERM or Ctrl-C, each sweep after the last one's wait. A
 * sweep under way ends at the next account; an account's delivery under way is finished (or,
 * killed, its lease runs out and the next run resumes it).
 */
async function deliver(io: CommandIo, settings: EventDeliverySettings, tools: NonNullable<ReturnType<typeof openBulkTools>>, follow: boolean): Promise<number> {
  const log: EventDeliveryLog = {
    info: () => {},
    warn: (message, fields) => writeLine(io.stderr, JSON.stringify({ level: 'WARN', service: 'passlane', message, ...fields })),
  };
  const deps = buildEventDelivery(settings, tools.config.storage, tools.platform, { log });
  const stop = new AbortController();
  const onSigterm = (): void => stop.abort();
  if (follow) {
    // Ctrl-C through the command's signal; SIGTERM (a service manager's stop) the same way.
    io.signal?.addEventListener('abort', onSigterm, { once: true });
    process.once('SIGTERM', onSigterm);
  }
  try {
    if (follow) writeLine(io.stdout, `delivering events to ${deps.sinks.map((sink) => sink.name).join(', ')}: a sweep every ${settings.sweepIntervalMs / 1000} s; SIGTERM or Ctrl-C stops`);
    let errors = 0;
    do {
      const result = await sweepPendingEvents(deps, { signal: stop.signal });
      errors += result.errors;
      if (!follow || result.accounts > 0) writeLine(io.stdout, describeSweep(result));
      if (follow) await sleep(settings.sweepIntervalMs, stop.signal);
    } while (follow && !stop.signal.aborted);
    if (follow) writeLine(io.stdout, 'stopped');
    return errors > 0 ? 1 : 0;
  } finally {
    process.removeListener('SIGTERM', onSigterm);
  }
}

function describeSweep(result: SweepResult): string {
  const { delivered, failed, waiting, leased, nothing } = result.outcomes;
  return `${result.accounts} pending outboxes: ${delivered} delivered, ${failed} failed (retried later), ${waiting} waiting for their retry, ${leased} held by another deliverer, ${nothing} already done, ${result.errors} errors`;
}

function printStatus(io: CommandIo, status: EventDeliveryStatus, configured: boolean): void {
  if (!configured) writeLine(io.stdout, 'No sink is configured (PASSLANE_WEBHOOKS, PASSLANE_EVENT_BUS): events are recorded only when PASSLANE_EVENTS is on, and delivered nowhere.');
  else {
    const rows = status.sinks.map((sink) => [sink.sink, sink.delivered, sink.failures, sink.deadLettered, sink.lastError === undefined ? '-' : `${sink.lastError} (${sink.lastErrorAt ?? 'when unknown'})`]);
    writeLine(io.stdout, formatTable(['sink', 'delivered', 'failures', 'dead letters', 'last error'], rows));
  }
  writeLine(io.stdout, `Pending outboxes: ${status.pendingOutboxes} accounts with events not yet delivered`);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
