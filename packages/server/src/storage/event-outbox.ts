import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DeleteItemCommandInput,
  type DynamoDBClient,
  type PutItemCommandInput,
  type TransactWriteItem,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { AccountEvent } from '../events/account-event.js';
import { StorageUnavailableError } from './errors.js';
import { OUTBOX_KEY_PREFIX } from './table.js';

/**
 * One write of a store, as it would send it alone. No `ReturnValues`: a transaction returns none
 * (`ReturnValuesOnConditionCheckFailure` does come back, in the cancellation's reason).
 */
export type OutboxChange =
  | { Put: Omit<PutItemCommandInput, 'ReturnValues'> }
  | { Update: Omit<UpdateItemCommandInput, 'ReturnValues'> }
  | { Delete: Omit<DeleteItemCommandInput, 'ReturnValues'> };

export interface EventOutboxOptions {
  /**
   * Called after a write with events committed, once per account in it: a long-lived host's
   * delivery starts at once (features/events) instead of at its next sweep. Must not throw.
   */
  afterAppend?: (accountId: string) => void;
}

/** Transactions cancelled by a concurrent one on the same items (two changes of one account) before giving up. */
const MAX_CONFLICT_ATTEMPTS = 4;

/**
 * The account events of a change, written with it (storage/README.md, "Account events: the
 * outbox"): each account's events appended to its `outbox#<accountId>` item, oldest first, in the
 * order the writes commit. Without events a write is the store's one command, exactly as before.
 * With events, where the server has transactions (DynamoDB, DynamoDB Local), the change and the
 * append are one TransactWriteItems: both or neither. On a server without them (dynalite answers
 * an unknown operation, after which the outbox does not ask again) the change, then the append:
 * a crash between the two loses the event, which only local development risks.
 *
 * A lost condition of the change reaches the store as if it had sent the change alone: a
 * ConditionalCheckFailedException, with the stored item when the change asked for it
 * (ReturnValuesOnConditionCheckFailure), so every store's handling of a lost race stays as it was.
 */
export class EventOutbox {
  /** Unknown until the first write with events: whether this server runs TransactWriteItems. */
  private transactions: boolean | undefined;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly options: EventOutboxOptions = {},
  ) {}

  /** The change, and with it the events (none: the change alone, as a store sends it). Errors are the SDK's, as `client.send` throws them. */
  async write(change: OutboxChange, events: readonly AccountEvent[]): Promise<void> {
    if (events.length === 0) {
      await this.client.send(singleCommand(change));
      return;
    }
    if (this.transactions !== false) {
      const outcome = await this.transact([transactItem(change), ...this.appendItems(events)]);
      if (outcome === 'written') {
        this.transactions = true;
        this.committed(events);
        return;
      }
      this.transactions = false;
    }
    await this.client.send(singleCommand(change));
    await this.append(events);
  }

  /**
   * The appends of `events` as transaction items, one per account: for a store whose own
   * TransactWriteItems carries them (email-switch-store.ts). Call `committed` once it commits.
   */
  appendItems(events: readonly AccountEvent[]): TransactWriteItem[] {
    return [...byAccount(events)].map(([accountId, ofAccount]): TransactWriteItem => ({ Update: { TableName: this.tableName, ...appendUpdate(accountId, ofAccount) } }));
  }

  /**
   * The appends alone, after a change already written (a server without transactions). A failure
   * here is StorageUnavailableError('appendAccountEvents'): the change stays, the event is lost.
   */
  async append(events: readonly AccountEvent[]): Promise<void> {
    for (const [accountId, ofAccount] of byAccount(events)) {
      try {
        await this.client.send(new UpdateItemCommand({ TableName: this.tableName, ...appendUpdate(accountId, ofAccount) }));
      } catch (error) {
        throw new StorageUnavailableError('appendAccountEvents', error);
      }
    }
    this.committed(events);
  }

  /** A write carrying `events` committed: the delivery may start. */
  committed(events: readonly AccountEvent[]): void {
    const { afterAppend } = this.options;
    if (afterAppend === undefined) return;
    for (const accountId of byAccount(events).keys()) {
      try {
        afterAppend(accountId);
      } catch {
        // The change and its events are written: a delivery that failed to start finds them at its next sweep.
      }
    }
  }

  /** Whether writes with events ran as transactions (tests; undefined before the first). */
  get usedTransactions(): boolean | undefined {
    return this.transactions;
  }

  private async transact(items: TransactWriteItem[]): Promise<'written' | 'unsupported'> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(new TransactWriteItemsCommand({ TransactItems: items }));
        return 'written';
      } catch (error) {
        const name = (error as { name?: string }).name;
        if (name === 'UnknownOperationException') return 'unsupported';
        if (name !== 'TransactionCanceledException') throw error;
        const reasons = (error as { CancellationReasons?: Array<{ Code?: string; Item?: Record<string, AttributeValue> }> }).CancellationReasons ?? [];
        const change = reasons[0];
        // The change's own condition: what the store would have met sending it alone.
        if (change?.Code === 'ConditionalCheckFailed') {
          throw new ConditionalCheckFailedException({
            message: 'The conditional request failed',
            $metadata: (error as { $metadata?: ConditionalCheckFailedException['$metadata'] }).$metadata ?? {},
            ...(change.Item !== undefined && { Item: change.Item }),
          });
        }
        // Another transaction on one of the items (the account's outbox, most often): nothing was
        // written, so the whole is tried again, shortly.
        const conflicted = reasons.some((reason) => reason.Code === 'TransactionConflict');
        if (!conflicted || attempt >= MAX_CONFLICT_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, attempt * (10 + Math.random() * 20)));
      }
    }
  }
}

/** `outbox#<accountId>`: one account's events waiting for delivery (table.ts). */
export function outboxKey(accountId: string): string {
  return `${OUTBOX_KEY_PREFIX}${accountId}`;
}

/** An event as the outbox's list holds it: its fields as strings, `data` as JSON. */
export function outboxEntry(event: AccountEvent): AttributeValue {
  return { M: { id: { S: event.id }, type: { S: event.type }, time: { S: event.time }, accountId: { S: event.accountId }, data: { S: JSON.stringify(event.data) } } };
}

/**
 * The append: no condition (an append never loses), the list created by the first, and
 * `pendingSince` (epoch seconds) set by the first append the delivery has not taken yet.
 */
function appendUpdate(accountId: string, events: readonly AccountEvent[]) {
  return {
    Key: { pk: { S: outboxKey(accountId) } },
    UpdateExpression: 'SET #events = list_append(if_not_exists(#events, :empty), :new), #pendingSince = if_not_exists(#pendingSince, :now)',
    ExpressionAttributeNames: { '#events': 'events', '#pendingSince': 'pendingSince' },
    ExpressionAttributeValues: {
      ':empty': { L: [] },
      ':new': { L: events.map(outboxEntry) },
      ':now': { N: String(Math.floor(Date.parse(events[0]!.time) / 1000)) },
    },
  };
}

function byAccount(events: readonly AccountEvent[]): Map<string, AccountEvent[]> {
  const grouped = new Map<string, AccountEvent[]>();
  for (const event of events) grouped.set(event.accountId, [...(grouped.get(event.accountId) ?? []), event]);
  return grouped;
}

function singleCommand(change: OutboxChange): PutItemCommand {
  // One union of commands sent through one `send` overload.
  if ('Put' in change) return new PutItemCommand(change.Put);
  if ('Update' in change) return new UpdateItemCommand(change.Update) as unknown as PutItemCommand;
  return new DeleteItemCommand(change.Delete) as unknown as PutItemCommand;
}

/** The change as a transaction's item: the fields a transaction takes, the rest (capacity reports, legacy options) dropped. */
function transactItem(change: OutboxChange): TransactWriteItem {
  const shared = <T extends { TableName?: string; ConditionExpression?: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, AttributeValue>; ReturnValuesOnConditionCheckFailure?: string }>(input: T) => ({
    TableName: input.TableName,
    ...(input.ConditionExpression !== undefined && { ConditionExpression: input.ConditionExpression }),
    ...(input.ExpressionAttributeNames !== undefined && { ExpressionAttributeNames: input.ExpressionAttributeNames }),
    ...(input.ExpressionAttributeValues !== undefined && { ExpressionAttributeValues: input.ExpressionAttributeValues }),
    ...(input.ReturnValuesOnConditionCheckFailure !== undefined && { ReturnValuesOnConditionCheckFailure: input.ReturnValuesOnConditionCheckFailure as 'ALL_OLD' | 'NONE' }),
  });
  if ('Put' in change) return { Put: { ...shared(change.Put), Item: change.Put.Item } };
  if ('Update' in change) return { Update: { ...shared(change.Update), Key: change.Update.Key, UpdateExpression: change.Update.UpdateExpression } };
  return { Delete: { ...shared(change.Delete), Key: change.Delete.Key } };
}
