import { parseArgs } from 'node:util';
import { MAX_SEGMENTS } from '../../features/rehash/job-cursor.js';
import { takeInventory, type Inventory, type UpgradeStatus } from '../../features/rehash/take-inventory.js';
import { CommandUsageError, describeFailure, parseCommandArgs, integerOption, writeLine, type CommandIo } from './command-io.js';
import { storageHint } from './storage-hint.js';
import { formatTable } from './format-table.js';
import { createProgress, ratePerSecond } from './progress.js';
import { buildAccountTools } from '../../wiring/build-dependencies.js';
import { openBulkTools } from './bulk-tools.js';
import { collectShapeSamples, MAX_TIMED_SHAPES, measureVerifyCosts, type VerifyCosts } from './measure-verify-costs.js';
import { CURRENT_COST_SHAPE } from 'passlane/common';
import { readEventDeliveryConfig } from '../../config/event-delivery-config.js';
import type { SinkStatus } from '../../storage/outbox-delivery-store.js';
import { buildEventDeliveryStatus } from '../../wiring/build-event-delivery.js';

/** Verifies per shape for --timing: the median of 5 holds within a few percent on a quiet machine. */
const TIMING_ROUNDS = 5;

export const INVENTORY_USAGE = `usage: passlane inventory [--segments N] [--timing] [--json]
Counts stored password hashes by scheme, parameters, wrapping and pepper key, and what each is
waiting for, accounts keyed by an email not in canonical form, disabled accounts, and accounts with second factors;
with PASSLANE_WEBHOOKS or PASSLANE_EVENT_BUS, each account-event destination's counts. Reads only (a parallel Scan);
no hashing, no writes.
--timing: then verifies one stored record of each cost shape with a wrong password, ${TIMING_ROUNDS} times,
against the current argon2id verify, and prints the PASSLANE_LOGIN_FAILURE_PAD_FACTOR to set.`;

const NEXT_STEP: Readonly<Record<UpgradeStatus, string>> = {
  up_to_date: 'none',
  awaiting_login: 'next login',
  to_wrap: 'rehash job: wrap',
  to_rotate: 'rehash job: re-seal',
  unparseable: 'fix by hand',
};

/** `passlane inventory`: a table (or `--json`) of what the table holds; how far an upgrade has come. */
export async function runInventoryCommand(args: string[], io: CommandIo): Promise<number> {
  const options = parseCommandArgs(io, 'inventory', INVENTORY_USAGE, () => parseInventoryArgs(args));
  if (options === undefined) return 2;
  const { segments, json, timing } = options;
  const tools = openBulkTools(io, 'inventory');
  if (tools === undefined) return 2;
  const { client } = tools;
  const progress = createProgress(io);
  const startedAt = Date.now();
  let inventory: Inventory;
  let events: SinkStatus[] | undefined;
  const accountTools = buildAccountTools(tools.config, tools.platform);
  // Only with --timing: one stored value per cost shape, held in memory for the run, never printed.
  const samples = timing ? collectShapeSamples(accountTools.hasher) : undefined;
  try {
    inventory = await takeInventory(accountTools, {
      segments,
      onProgress: (scanned) => progress.update(() => ({ text: `${scanned} accounts read, ${ratePerSecond(scanned, startedAt)}` })),
      ...(samples && { onRecord: (stored: string) => samples.add(stored) }),
    });
    events = await eventSinkStatus(io, tools);
  } catch (error) {
    writeLine(io.stderr, `passlane inventory: ${describeFailure(error)}`);
    // What to set, as import and rehash say it (`Region is missing` alone names no variable).
    const hint = storageHint(error, tools.config.storage);
    if (hint !== undefined) writeLine(io.stderr, hint);
    return 2;
  } finally {
    progress.done();
    client.destroy();
  }
  let costs: VerifyCosts | undefined;
  try {
    costs = samples && (await measureVerifyCosts(accountTools.hasher, samples, { rounds: TIMING_ROUNDS }));
  } catch (error) {
    writeLine(io.stderr, `passlane inventory: --timing: ${describeFailure(error)}`);
    return 2;
  }
  if (json) writeLine(io.stdout, JSON.stringify({ ...inventory, ...(costs && { timing: costs }), ...(events && { events }) }));
  else {
    printInventory(io, inventory);
    if (events) printEventSinks(io, events);
    if (costs && samples) printVerifyCosts(io, costs, samples.untimedAccounts);
  }
  return 0;
}

/**
 * The account events' destinations, when any is configured: each one's counts and last error
 * (a read per sink; the pending outboxes are `passlane events status`'s, a Scan of their own).
 */
async function eventSinkStatus(io: CommandIo, tools: NonNullable<ReturnType<typeof openBulkTools>>): Promise<SinkStatus[] | undefined> {
  const settings = readEventDeliveryConfig(io.env);
  if (settings === undefined) return undefined;
  const { status, sinkNames } = buildEventDeliveryStatus(settings, tools.config.storage, tools.platform);
  return status.sinkStatus(sinkNames);
}

function printEventSinks(io: CommandIo, sinks: SinkStatus[]): void {
  for (const sink of sinks) {
    const last = sink.lastError === undefined ? '' : `; last error ${sink.lastError} at ${sink.lastErrorAt ?? 'an unknown time'}`;
    writeLine(io.stdout, `Account events to ${sink.sink}: ${sink.delivered} delivered, ${sink.failures} failed attempts, ${sink.deadLettered} dead-lettered${last} (pending: passlane events status)`);
  }
}

/** What each shape costs to verify against the current argon2id, and the factor to set. */
function printVerifyCosts(io: CommandIo, costs: VerifyCosts, untimedAccounts: number): void {
  writeLine(io.stdout);
  writeLine(io.stdout, `Verify cost by shape (a wrong password, median of ${costs.rounds}; current argon2id verify ${costs.currentMs.toFixed(1)} ms here):`);
  const rows = costs.shapes.map((cost) =>
    'error' in cost ? [cost.shape, cost.accounts, '-', `cannot verify here (${cost.error}): logins answer it with the dummy`] : [cost.shape, cost.accounts, cost.medianMs.toFixed(1), `${cost.ratio.toFixed(2)}x`],
  );
  writeLine(io.stdout, formatTable(['shape', 'accounts', 'median ms', 'x current'], rows));
  if (untimedAccounts > 0) writeLine(io.stdout, `${untimedAccounts} accounts have shapes beyond the first ${MAX_TIMED_SHAPES}: not timed.`);
  writeLine(io.stdout);
  writeLine(
    io.stdout,
    costs.slowest === undefined || costs.slowest === CURRENT_COST_SHAPE || costs.padFactor <= 1
      ? 'Every stored shape verifies within the current argon2id cost: PASSLANE_LOGIN_FAILURE_PAD_FACTOR can stay unset.'
      : `Set PASSLANE_LOGIN_FAILURE_PAD_FACTOR=${costs.padFactor} on the login functions: the slowest stored verify (${costs.slowest}) ` +
          `costs ${costs.padFactor} current argon2id verifies, and failed logins then wait that long from a container's first request.`,
  );
}

function printInventory(io: CommandIo, inventory: Inventory): void {
  const rows = inventory.groups.map((group) => [
    group.scheme,
    group.parameters ?? '-',
    group.pepperKeyId ?? '-',
    group.wrapped ? 'yes' : 'no',
    group.fastDigest ? 'FAST DIGEST' : '-',
    group.needsRehash ? 'yes' : 'no',
    NEXT_STEP[group.status],
    group.count,
  ]);
  for (const [code, count] of Object.entries(inventory.unparseable)) rows.push([`(unparseable: ${code})`, '-', '-', '-', '-', '-', NEXT_STEP.unparseable, count]);
  writeLine(io.stdout, formatTable(['scheme', 'parameters', 'pepper', 'wrapped', 'weakness', 'needs rehash', 'next step', 'accounts'], rows));
  writeLine(io.stdout);
  const { total, byStatus } = inventory;
  const share = (count: number) => (total === 0 ? '0%' : `${((count / total) * 100).toFixed(1)}%`);
  writeLine(
    io.stdout,
    `${total} accounts: ${byStatus.up_to_date} up to date (${share(byStatus.up_to_date)}), ` +
      `${byStatus.awaiting_login} memory-hard awaiting login (${share(byStatus.awaiting_login)}), ` +
      `${byStatus.to_wrap} to wrap, ${byStatus.to_rotate} to re-seal, ${byStatus.unparseable} unparseable`,
  );
  writeLine(io.stdout, `Upgrade progress (up to date or awaiting login): ${share(byStatus.up_to_date + byStatus.awaiting_login)}`);
  const { factors } = inventory;
  writeLine(
    io.stdout,
    `Second factors: ${factors.totp} accounts with TOTP (${share(factors.totp)}), ${factors.passkeyAccounts} with passkeys (${share(factors.passkeyAccounts)}; ` +
      `${factors.passkeys} passkeys), ${factors.recoveryCodes} with recovery codes left (${share(factors.recoveryCodes)})`,
  );
  writeLine(io.stdout, `Disabled by an operator: ${inventory.disabled} accounts (${share(inventory.disabled)}; counted above too)`);
  if (inventory.fastDigests > 0) {
    writeLine(
      io.stdout,
      `WARNING: ${inventory.fastDigests} accounts hold fast digests (MD5, SHA-1, SHA-2 in one round), which a stolen table gives up ` +
        'at GPU speed: run passlane rehash now; it wraps them before anything else.',
    );
  }
  const { rekey, collides, refused } = inventory.emails;
  if (rekey + collides + refused > 0) {
    writeLine(
      io.stdout,
      `WARNING: ${rekey + collides + refused} accounts are keyed by an email not in canonical form (${rekey} to re-key, ${collides} colliding ` +
        `with another account, ${refused} refused) and cannot log in until migrated: their userIds are in --json (emails.accounts); ` +
        'see packages/server/src/features/rehash/README.md, "Emails not in canonical form".',
    );
  }
}

function parseInventoryArgs(args: string[]): { segments: number; json: boolean; timing: boolean } {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { segments: { type: 'string' }, json: { type: 'boolean' }, timing: { type: 'boolean' } },
  });
  if (positionals.length > 0) throw new CommandUsageError('inventory takes no arguments');
  return { segments: integerOption(values.segments, 'segments', 4, 1, MAX_SEGMENTS), json: values.json === true, timing: values.timing === true };
}
