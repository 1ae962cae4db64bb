import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { conditionalUpdate } from './conditional-update.js';
import { StorageRecordInvalidError, StorageUnavailableError } from './errors.js';
import { OUTBOX_DEAD_KEY_PREFIX, OUTBOX_KEY_PREFIX, OUTBOX_STATUS_KEY_PREFIX } from './table.js';

// The prefixes are table.ts's (with every other); here too for the stores' callers that name them.
export { OUTBOX_DEAD_KEY_PREFIX, OUTBOX_KEY_PREFIX, OUTBOX_STATUS_KEY_PREFIX };

type Item = Record<string, AttributeValue>;


/** One event as the outbox holds it: `data` is the event's data as JSON. */
export interface StoredEvent {
  id: string;
  type: string;
  time: string;
  accountId: string;
  data: string;
}

/** An account's outbox as read under a lease: its events oldest first, and the head's progress. */
export interface Outbox {
  accountId: string;
  events: StoredEvent[];
  /** The sinks that already have events[0]. */
  headDone: string[];
  /** Failed attempts at events[0] so far. */
  headAttempts: number;
  /** Epoch ms before which events[0] is not tried again; 0 when due. */
  nextAttemptAt: number;
  /** Epoch seconds of the oldest append not yet delivered. */
  pendingSince: number | undefined;
}

/**
 * `claimed`: the caller holds the lease and the outbox as it stands; `nothing`: no outbox (or an
 * empty one); `leased`: another deliverer holds it; `waiting`: its head's backoff has not run out
 * (`nextAttemptAt`, epoch ms).
 */
export type ClaimResult =
  | { kind: 'claimed'; outbox: Outbox }
  | { kind: 'nothing' }
  | { kind: 'leased'; until: number }
  | { kind: 'waiting'; nextAttemptAt: number };

/** What a failed attempt at the head leaves for the next one. */
export interface HeadProgress {
  headDone: string[];
  headAttempts: number;
  nextAttemptAt: number;
  /** Safe to store and show (EventDeliveryError.detail): no secret, no body. */
  lastError: string;
}

/** One sink's counts and its last failure (`outbox-status#<sink>`). */
export interface SinkStatus {
  sink: string;
  delivered: number;
  failures: number;
  deadLettered: number;
  lastError?: string;
  /** ISO 8601. */
  lastErrorAt?: string;
}

/** An event a sink never took, after the last attempt (`outbox-dead#<sink>#<event id>`). */
export interface DeadLetter {
  sink: string;
  event: StoredEvent;
  error: string;
  attempts: number;
  deadLetteredAt: Date;
  /** Epoch seconds: the table's TTL removes it after this. */
  expiresAt: number;
}

/** One page of pending outboxes; `cursor` is there when the Scan has more (a pk: never logged). */
export interface PendingPage {
  accountIds: string[];
  cursor?: string;
}

/**
 * The delivery's side of the outbox (features/events/README.md): a lease so one deliverer at a
 * time works an account's outbox, the head's progress and backoff, the removal of what was
 * delivered, and each sink's counts and dead letters. Every write to an outbox is conditioned on
 * the lease (and, for the head, on events[0].id), so a deliverer whose lease ran out and was taken
 * over changes nothing; the appends (event-outbox.ts) take no condition and are never lost: the
 * pop removes by position only while the head is the one delivered, and the final delete only
 * while the list is empty.
 */
export class OutboxDeliveryStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  /**
   * Takes the account's outbox for `leaseMs` (epoch ms `now`): only an existing outbox, whose
   * lease is free, expired or already the caller's, and whose head is due. The outbox comes back
   * from the write itself (ALL_NEW), as consistent as a strong read.
   */
  async claim(accountId: string, owner: string, now: number, leaseMs: number): Promise<ClaimResult> {
    let attributes: Item | undefined;
    try {
      const result = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: key(OUTBOX_KEY_PREFIX + accountId),
          UpdateExpression: 'SET leaseOwner = :owner, leaseUntil = :until',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now OR leaseOwner = :owner) AND (attribute_not_exists(nextAttemptAt) OR nextAttemptAt <= :now)',
          ExpressionAttributeValues: { ':owner': { S: owner }, ':until': number(now + leaseMs), ':now': number(now) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      attributes = result.Attributes;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw new StorageUnavailableError('claimOutbox', error);
      // Why it was refused, from a strong read: gone, another's lease, or the head's backoff.
      const item = await this.get(OUTBOX_KEY_PREFIX + accountId, 'claimOutbox');
      if (item === undefined) return { kind: 'nothing' };
      const leaseUntil = Number(item.leaseUntil?.N ?? 0);
      if (leaseUntil >= now && item.leaseOwner?.S !== owner) return { kind: 'leased', until: leaseUntil };
      return { kind: 'waiting', nextAttemptAt: Number(item.nextAttemptAt?.N ?? 0) };
    }
    const outbox = readOutbox(accountId, attributes ?? {});
    if (outbox.events.length === 0) {
      // An outbox emptied by the last pop whose delete lost to nothing (a crash between): finish it.
      return (await this.deleteIfEmpty(accountId, owner)) ? { kind: 'nothing' } : this.claim(accountId, owner, now, leaseMs);
    }
    return { kind: 'claimed', outbox };
  }

  /**
   * Removes the delivered head (while the caller holds the lease and events[0] is still `headId`),
   * clears the head's progress for the next one and extends the lease. The outbox as it is now
   * (appends since the claim included), or undefined when the lease or the head was lost.
   */
  async pop(accountId: string, owner: string, headId: string, leaseUntil: number): Promise<Outbox | undefined> {
    try {
      const result = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: key(OUTBOX_KEY_PREFIX + accountId),
          UpdateExpression: 'REMOVE #events[0], headDone, headAttempts, nextAttemptAt, headLastError SET leaseUntil = :until',
          ConditionExpression: 'leaseOwner = :owner AND #events[0].#id = :head',
          ExpressionAttributeNames: { '#events': 'events', '#id': 'id' },
          ExpressionAttributeValues: { ':owner': { S: owner }, ':head': { S: headId }, ':until': number(leaseUntil) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return readOutbox(accountId, result.Attributes ?? {});
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw new StorageUnavailableError('popOutbox', error);
    }
  }

  /**
   * Deletes the outbox while the caller holds its lease and it has no event: an append that came
   * after the last pop keeps it (false), and the caller delivers that one too.
   */
  async deleteIfEmpty(accountId: string, owner: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: key(OUTBOX_KEY_PREFIX + accountId),
          ConditionExpression: 'leaseOwner = :owner AND (attribute_not_exists(#events) OR size(#events) = :zero)',
          ExpressionAttributeNames: { '#events': 'events' },
          ExpressionAttributeValues: { ':owner': { S: owner }, ':zero': number(0) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('deleteOutbox', error);
    }
  }

  /** A failed attempt at the head: what is done, how many tries, when next. False when the lease or the head was lost. */
  recordAttempt(accountId: string, owner: string, headId: string, progress: HeadProgress, leaseUntil: number): Promise<boolean> {
    const done = progress.headDone.length > 0;
    return conditionalUpdate(this.client, this.tableName, 'recordOutboxAttempt', {
      Key: key(OUTBOX_KEY_PREFIX + accountId),
      UpdateExpression: `SET headAttempts = :attempts, nextAttemptAt = :next, headLastError = :error, leaseUntil = :until${done ? ', headDone = :done' : ' REMOVE headDone'}`,
      ConditionExpression: 'leaseOwner = :owner AND #events[0].#id = :head',
      ExpressionAttributeNames: { '#events': 'events', '#id': 'id' },
      ExpressionAttributeValues: {
        ':owner': { S: owner },
        ':head': { S: headId },
        ':attempts': number(progress.headAttempts),
        ':next': number(progress.nextAttemptAt),
        ':error': { S: progress.lastError },
        ':until': number(leaseUntil),
        ...(done && { ':done': { SS: progress.headDone } }),
      },
    });
  }

  /** Gives the lease up (only the caller's own; a lost one is nobody's business here). */
  async release(accountId: string, owner: string): Promise<void> {
    await conditionalUpdate(this.client, this.tableName, 'releaseOutbox', {
      Key: key(OUTBOX_KEY_PREFIX + accountId),
      UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeValues: { ':owner': { S: owner } },
    });
  }

  /** The outbox as stored (strongly consistent), without taking it; undefined when there is none. */
  async read(accountId: string): Promise<Outbox | undefined> {
    const item = await this.get(OUTBOX_KEY_PREFIX + accountId, 'readOutbox');
    return item === undefined ? undefined : readOutbox(accountId, item);
  }

  /** A sink took an event. */
  countDelivered(sink: string): Promise<void> {
    return this.count(sink, 'SET delivered = if_not_exists(delivered, :zero) + :one', {});
  }

  /** A sink refused or missed an event: counted, and kept as its last error (safe text only). */
  countFailure(sink: string, error: string, at: Date): Promise<void> {
    return this.count(sink, 'SET failures = if_not_exists(failures, :zero) + :one, lastError = :error, lastErrorAt = :at', {
      ':error': { S: error },
      ':at': { S: at.toISOString() },
    });
  }

  /**
   * Keeps the event a sink never took (`outbox-dead#<sink>#<id>`, until `expiresAt`) and counts it.
   * A second dead-lettering of one event (a retried run) replaces the item; the count may then be one over.
   */
  async deadLetter(letter: DeadLetter): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            pk: { S: `${OUTBOX_DEAD_KEY_PREFIX}${letter.sink}#${letter.event.id}` },
            sink: { S: letter.sink },
            event: { M: eventItem(letter.event) },
            error: { S: letter.error },
            attempts: number(letter.attempts),
            deadLetteredAt: { S: letter.deadLetteredAt.toISOString() },
            expiresAt: number(letter.expiresAt),
          },
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('deadLetterEvent', error);
    }
    await this.count(letter.sink, 'SET deadLettered = if_not_exists(deadLettered, :zero) + :one', {});
  }

  /** Each named sink's counts (zero for a sink that has none yet). */
  async sinkStatus(sinks: readonly string[]): Promise<SinkStatus[]> {
    return Promise.all(
      sinks.map(async (sink) => {
        const item = await this.get(OUTBOX_STATUS_KEY_PREFIX + sink, 'readSinkStatus');
        return {
          sink,
          delivered: Number(item?.delivered?.N ?? 0),
          failures: Number(item?.failures?.N ?? 0),
          deadLettered: Number(item?.deadLettered?.N ?? 0),
          ...(item?.lastError?.S !== undefined && { lastError: item.lastError.S }),
          ...(item?.lastErrorAt?.S !== undefined && { lastErrorAt: item.lastErrorAt.S }),
        };
      }),
    );
  }

  /**
   * One page of the accounts with an outbox (`outbox#` with `pendingSince`), for the hosts with
   * no stream (features/events/sweep-pending-events.ts). A Scan reads the whole table, every item
   * of every kind, and is billed for all it reads, not for what the filter keeps: one sweep costs
   * about the table's size in read units (halved by the eventually consistent read it uses). Run it
   * rarely (PASSLANE_EVENT_SWEEP_S); on AWS the table's stream rings instead and nothing scans.
   * `limit` caps the items read per page, not the outboxes found.
   */
  async scanPending(options: { cursor?: string; limit?: number } = {}): Promise<PendingPage> {
    try {
      const result = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: 'begins_with(pk, :prefix) AND attribute_exists(pendingSince)',
          ProjectionExpression: 'pk',
          ExpressionAttributeValues: { ':prefix': { S: OUTBOX_KEY_PREFIX } },
          ...(options.limit !== undefined && { Limit: options.limit }),
          ...(options.cursor !== undefined && { ExclusiveStartKey: { pk: { S: options.cursor } } }),
        }),
      );
      const accountIds = (result.Items ?? []).map((item) => item.pk?.S?.slice(OUTBOX_KEY_PREFIX.length)).filter((id): id is string => id !== undefined && id !== '');
      // The cursor is the last key the Scan read: any item's pk, an address (`user#<email>`) maybe, so
      // callers keep it in memory and never log it.
      const cursor = result.LastEvaluatedKey?.pk?.S;
      return { accountIds, ...(cursor !== undefined && { cursor }) };
    } catch (error) {
      throw new StorageUnavailableError('scanPendingOutboxes', error);
    }
  }

  private async count(sink: string, update: string, values: Item): Promise<void> {
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: key(OUTBOX_STATUS_KEY_PREFIX + sink),
          UpdateExpression: update,
          ExpressionAttributeValues: { ':zero': number(0), ':one': number(1), ...values },
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('countSinkStatus', error);
    }
  }

  private async get(pk: string, operation: string): Promise<Item | undefined> {
    try {
      const result = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: key(pk), ConsistentRead: true }));
      return result.Item;
    } catch (error) {
      throw new StorageUnavailableError(operation, error);
    }
  }
}

function key(pk: string): Item {
  return { pk: { S: pk } };
}

function number(value: number): AttributeValue {
  return { N: String(value) };
}

function eventItem(event: StoredEvent): Item {
  return { id: { S: event.id }, type: { S: event.type }, time: { S: event.time }, accountId: { S: event.accountId }, data: { S: event.data } };
}

function readOutbox(accountId: string, item: Item): Outbox {
  const events = (item.events?.L ?? []).map((value, index) => readEvent(value, index));
  return {
    accountId,
    events,
    headDone: item.headDone?.SS ?? [],
    headAttempts: Number(item.headAttempts?.N ?? 0),
    nextAttemptAt: Number(item.nextAttemptAt?.N ?? 0),
    pendingSince: item.pendingSince?.N === undefined ? undefined : Number(item.pendingSince.N),
  };
}

function readEvent(value: AttributeValue, index: number): StoredEvent {
  const map = value.M;
  const fields = ['id', 'type', 'time', 'accountId', 'data'] as const;
  if (map === undefined || fields.some((field) => map[field]?.S === undefined)) throw new StorageRecordInvalidError(`outbox event ${index} lacks id, type, time, accountId or data`);
  return { id: map.id!.S!, type: map.type!.S!, time: map.time!.S!, accountId: map.accountId!.S!, data: map.data!.S! };
}
