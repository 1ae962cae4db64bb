import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { StorageUnavailableError } from './errors.js';
import { userKey } from './account-store.js';
import { CLEAR_FACTOR_FAILURES, PASSKEY_KEY_PREFIX, mfaKey } from './table.js';
import type { AccountEvent } from '../events/account-event.js';
import { EventOutbox } from './event-outbox.js';

type Item = Record<string, AttributeValue>;

/** One account moving from one address to another (features/email-change). */
export interface EmailSwitch {
  userId: string;
  /** Canonical emails, and their fingerprints (the keys of the account's other items). */
  from: string;
  fromKey: string;
  to: string;
  toKey: string;
  now: Date;
}

/**
 * `switched`; `taken`: the new address has an account (or another switch won it); `gone`: no
 * account of this userId at `from` any more; `changed`: the account or its factors changed
 * between the read and the writes (read again and retry).
 */
export type SwitchOutcome = 'switched' | 'taken' | 'gone' | 'changed';

/**
 * What the account's item holds while a switch without transactions is under way (dynalite, dev
 * only): no password verifies against it until the switch's last write puts the real hash back.
 */
export const SWITCH_PENDING_HASH = '!email-switch-pending';

/** Optional attributes of the account and factors items: absent when read, they must still be absent when moved. */
const USER_OPTIONAL = ['passwordChangedAt', 'emailVerified', 'disabledAt', 'updatedAt', 'switchFrom'];
const MFA_OPTIONAL = ['totpSecret', 'totpLastStep', 'totpEnabledAt', 'pendingSecret', 'pendingExpiresAt', 'recoveryCodes', 'passkeys', ...CLEAR_FACTOR_FAILURES.split(', ')];

/** The items of one account, as read before a switch. */
interface SwitchPlan {
  input: EmailSwitch;
  user: Item;
  factors?: Item;
  /** A factors item at the new key that no account at the new address holds (an earlier account's leftover). */
  staleFactors?: Item;
  /** The account's passkeys' lookup items (credential id -> as read). */
  lookups: Map<string, Item>;
}

/**
 * The switch of an account's address (storage/README.md, "Switching an address"): the account
 * item moves from `user#<from>` to `user#<to>`, created only if absent and deleted only while
 * unchanged; its factors item from `mfa#<fromKey>` to `mfa#<toKey>` the same way; its passkeys'
 * lookups follow, each only while it still names this account. One TransactWriteItems where the
 * server has it; on one without (dynalite answers an unknown operation) the same writes in order,
 * the new address's conditional put first, undone when a later condition fails. Sessions,
 * devices and one-time links are not moved: the caller ends them (they are keyed by the old
 * address's fingerprint, and the tokens that name them carry it). The account events of a switch
 * (`events`) are appended in its transaction, or after its last step (event-outbox.ts).
 */
export class EmailSwitchStore {
  /** Unknown until the first switch: whether this server runs TransactWriteItems. */
  private transactions: boolean | undefined;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly outbox = new EventOutbox(client, tableName),
  ) {}

  async switchEmail(input: EmailSwitch, events: readonly AccountEvent[] = []): Promise<SwitchOutcome> {
    const plan = await this.plan(input);
    if (typeof plan === 'string') return plan;
    if (this.transactions !== false) {
      const outcome = await this.transact(plan, events);
      if (outcome !== 'unsupported') {
        this.transactions = true;
        if (outcome === 'switched') this.outbox.committed(events);
        return outcome;
      }
      this.transactions = false;
    }
    const outcome = await this.inSteps(plan);
    if (outcome === 'switched' && events.length > 0) await this.outbox.append(events);
    return outcome;
  }

  /**
   * The account's address when `email`'s item is a switch of this account that stopped midway on a
   * server without transactions (the pending hash, `switchFrom`): while the old item is still there,
   * the pending one (and its factors' copy) is undone and the old address returned; once the old
   * item is gone, the account is at `email` (its password unusable until a reset, storage/README.md).
   * Any other item: `email` as it is.
   */
  async settlePending(email: string, userId: string, fingerprint: (email: string) => string): Promise<string> {
    const item = await this.get(userKey(email));
    const from = item?.switchFrom?.S;
    if (item?.userId?.S !== userId || from === undefined || item.passwordHash?.S !== SWITCH_PENDING_HASH) return email;
    const old = await this.get(userKey(from));
    if (old?.userId?.S !== userId) return email;
    const input = { userId, from, fromKey: fingerprint(from), to: email, toKey: fingerprint(email), now: new Date() };
    await this.undoPendingTarget(input, await this.get(mfaKey(input.toKey)));
    return from;
  }

  /**
   * An operator's attention needed: the account item at `email` disabled (login, refresh and tokens
   * refused), only while it is this account's. False when it is not there.
   */
  async disable(email: string, userId: string, now: Date, events: readonly AccountEvent[] = []): Promise<boolean> {
    try {
      await this.outbox.write(
        {
          Update: {
            TableName: this.tableName,
            Key: key(userKey(email)),
            UpdateExpression: 'SET disabledAt = if_not_exists(disabledAt, :now), updatedAt = :now',
            ConditionExpression: 'userId = :userId',
            ExpressionAttributeValues: { ':now': { S: now.toISOString() }, ':userId': { S: userId } },
          },
        },
        events,
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('switchEmail', error);
    }
  }

  /** Whether the last switch ran as one transaction (tests; undefined before any). */
  get usedTransactions(): boolean | undefined {
    return this.transactions;
  }

  private async plan(input: EmailSwitch): Promise<SwitchPlan | SwitchOutcome> {
    const [user, target, factors, targetFactors] = await Promise.all([
      this.get(userKey(input.from)),
      this.get(userKey(input.to)),
      this.get(mfaKey(input.fromKey)),
      this.get(mfaKey(input.toKey)),
    ]);
    if (user?.userId?.S !== input.userId) return 'gone';
    if (target !== undefined) {
      // A switch of this account that stopped midway on a server without transactions: undone here.
      if (target.userId?.S === input.userId && target.switchFrom?.S === input.from) {
        await this.undoPendingTarget(input, targetFactors);
        return 'changed';
      }
      return 'taken';
    }
    const staleFactors = targetFactors !== undefined && targetFactors.accountUserId?.S !== input.userId ? targetFactors : undefined;
    const lookups = new Map<string, Item>();
    for (const credentialId of Object.keys(factors?.passkeys?.M ?? {})) {
      const lookup = await this.get(PASSKEY_KEY_PREFIX + credentialId);
      if (lookup?.accountKey?.S === input.fromKey && lookup.accountUserId?.S === input.userId) lookups.set(credentialId, lookup);
    }
    return { input, user, lookups, ...(factors !== undefined && { factors }), ...(staleFactors !== undefined && { staleFactors }) };
  }

  /** Every write of the switch as one transaction; `unsupported` when the server has none. */
  private async transact(plan: SwitchPlan, events: readonly AccountEvent[]): Promise<SwitchOutcome | 'unsupported'> {
    const items: TransactWriteItem[] = [
      { Put: { TableName: this.tableName, Item: movedUser(plan, plan.user.passwordHash!), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Delete: { TableName: this.tableName, Key: key(userKey(plan.input.from)), ...unchanged(plan.user, USER_OPTIONAL) } },
      ...this.factorWrites(plan),
      ...[...plan.lookups.keys()].map((credentialId): TransactWriteItem => ({ Update: { TableName: this.tableName, ...lookupUpdate(plan, credentialId, 'forward') } })),
      // Last: the cancellation's reasons keep the switch's own items where they were.
      ...this.outbox.appendItems(events),
    ];
    try {
      await this.client.send(new TransactWriteItemsCommand({ TransactItems: items }));
      return 'switched';
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'UnknownOperationException') return 'unsupported';
      if (name !== 'TransactionCanceledException') throw new StorageUnavailableError('switchEmail', error);
      const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
      if (reasons[0]?.Code === 'ConditionalCheckFailed') return 'taken';
      if (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed' || reason.Code === 'TransactionConflict')) return 'changed';
      throw new StorageUnavailableError('switchEmail', error);
    }
  }

  private factorWrites(plan: SwitchPlan): TransactWriteItem[] {
    const { input, factors, staleFactors } = plan;
    if (factors !== undefined) {
      return [
        { Put: { TableName: this.tableName, Item: { ...factors, pk: { S: mfaKey(input.toKey) } }, ...absentOrStale(staleFactors) } },
        { Delete: { TableName: this.tableName, Key: key(mfaKey(input.fromKey)), ...unchanged(factors, MFA_OPTIONAL) } },
      ];
    }
    if (staleFactors !== undefined) {
      return [{ Delete: { TableName: this.tableName, Key: key(mfaKey(input.toKey)), ...absentOrStale(staleFactors) } }];
    }
    return [];
  }

  /**
   * Without transactions: the new address's conditional put first (of two switches to one
   * address exactly one passes it), holding no usable password; then the factors' copy; then the
   * old account item's conditional delete (the old address stops logging in); then the lookups;
   * then the old factors item; then the real password hash. A lost condition before the old
   * account item is deleted undoes what was written; after it, the switch goes forward.
   */
  private async inSteps(plan: SwitchPlan): Promise<SwitchOutcome> {
    const { input, factors, staleFactors } = plan;
    if (!(await this.write(new PutItemCommand({ TableName: this.tableName, Item: movedUser(plan, SWITCH_PENDING_HASH), ConditionExpression: 'attribute_not_exists(pk)' })))) {
      return 'taken';
    }
    const undoTarget = () => this.undoPendingTarget(input, factors !== undefined ? { ...factors, pk: { S: mfaKey(input.toKey) } } : undefined);
    const factorWrite = this.factorWrites(plan)[0];
    if (factorWrite?.Put !== undefined) {
      if (!(await this.write(new PutItemCommand(factorWrite.Put)))) {
        await undoTarget();
        return 'changed';
      }
    } else if (factorWrite?.Delete !== undefined && staleFactors !== undefined) {
      await this.write(new DeleteItemCommand(factorWrite.Delete));
    }
    if (!(await this.write(new DeleteItemCommand({ TableName: this.tableName, Key: key(userKey(input.from)), ...unchanged(plan.user, USER_OPTIONAL) })))) {
      await undoTarget();
      return 'changed';
    }
    await this.finishSteps(plan);
    return 'switched';
  }

  /** The steps after the old account item is gone: nothing undoes them, so a lost condition re-reads and goes on. */
  private async finishSteps(plan: SwitchPlan): Promise<void> {
    const { input } = plan;
    // A lookup whose passkey was removed meanwhile fails its condition: nothing to carry.
    await Promise.all([...plan.lookups.keys()].map((credentialId) => this.write(new UpdateItemCommand({ TableName: this.tableName, ...lookupUpdate(plan, credentialId, 'forward') }))));
    let factors = plan.factors;
    for (let attempt = 1; factors !== undefined; attempt++) {
      if (await this.write(new DeleteItemCommand({ TableName: this.tableName, Key: key(mfaKey(input.fromKey)), ...unchanged(factors, MFA_OPTIONAL) }))) break;
      // The factors changed after their copy (a code used, a count moved): copy them again.
      if (attempt >= 3) throw new StorageUnavailableError('switchEmail', new Error('the factors kept changing'));
      factors = await this.get(mfaKey(input.fromKey));
      if (factors !== undefined) {
        await this.client.send(new PutItemCommand({ TableName: this.tableName, Item: { ...factors, pk: { S: mfaKey(input.toKey) } } })).catch((error: unknown) => {
          throw new StorageUnavailableError('switchEmail', error);
        });
      }
    }
    await this.write(
      new UpdateItemCommand({
        TableName: this.tableName,
        Key: key(userKey(input.to)),
        UpdateExpression: 'SET passwordHash = :hash REMOVE switchFrom',
        ConditionExpression: 'passwordHash = :pending AND switchFrom = :from',
        ExpressionAttributeValues: { ':hash': plan.user.passwordHash!, ':pending': { S: SWITCH_PENDING_HASH }, ':from': { S: input.from } },
      }),
    );
  }

  /** A pending new item of this switch (ours, still holding the pending hash) deleted, with the factors copied for it. */
  private async undoPendingTarget(input: EmailSwitch, targetFactors: Item | undefined): Promise<void> {
    if (targetFactors?.accountUserId?.S === input.userId) {
      await this.write(new DeleteItemCommand({ TableName: this.tableName, Key: key(mfaKey(input.toKey)), ...unchanged(targetFactors, MFA_OPTIONAL) }));
    }
    // Lookups carried already (a switch stopped after them) come back to the old key.
    for (const credentialId of Object.keys(targetFactors?.passkeys?.M ?? {})) {
      await this.write(new UpdateItemCommand({ TableName: this.tableName, ...lookupUpdate({ input }, credentialId, 'back') }));
    }
    await this.write(
      new DeleteItemCommand({
        TableName: this.tableName,
        Key: key(userKey(input.to)),
        ConditionExpression: 'userId = :userId AND switchFrom = :from AND passwordHash = :pending',
        ExpressionAttributeValues: { ':userId': { S: input.userId }, ':from': { S: input.from }, ':pending': { S: SWITCH_PENDING_HASH } },
      }),
    );
  }

  /** One conditional write: false when its condition failed. */
  private async write(command: PutItemCommand | DeleteItemCommand | UpdateItemCommand): Promise<boolean> {
    try {
      await this.client.send(command as PutItemCommand);
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('switchEmail', error);
    }
  }

  private async get(pk: string): Promise<Item | undefined> {
    try {
      return (await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: key(pk), ConsistentRead: true }))).Item;
    } catch (error) {
      throw new StorageUnavailableError('readForEmailSwitch', error);
    }
  }
}

function key(pk: string): Item {
  return { pk: { S: pk } };
}

/**
 * The account item at its new key: the new address, verified (the link to it was used), and,
 * without transactions, the pending hash and where it comes from until the last write.
 */
function movedUser(plan: SwitchPlan, passwordHash: AttributeValue | string): Item {
  const { input, user } = plan;
  const pending = typeof passwordHash === 'string';
  const { switchFrom: _old, ...rest } = user;
  return {
    ...rest,
    pk: { S: userKey(input.to) },
    email: { S: input.to },
    emailVerified: { BOOL: true },
    updatedAt: { S: input.now.toISOString() },
    passwordHash: pending ? { S: passwordHash } : passwordHash,
    ...(pending && { switchFrom: { S: input.from } }),
  };
}

/**
 * The item is still as read: every scalar read the same, every set and map the same size and
 * holding what it held (a map's scalars compared one by one: a passkey's counter, name, last use),
 * every optional attribute absent then absent now. Built from scalars and sizes, not whole-map or
 * whole-set equality, which not every server compares (dynalite), and within the expression's
 * length limit for an account's ten passkeys (a credential's public key and transports never
 * change, so they are not compared).
 */
function unchanged(item: Item, optional: readonly string[]): { ConditionExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Item } {
  const names: Record<string, string> = {};
  const values: Item = {};
  const conditions: string[] = [];
  let index = 0;
  const name = (text: string) => {
    const placeholder = `#n${index++}`;
    names[placeholder] = text;
    return placeholder;
  };
  const value = (attribute: AttributeValue) => {
    const placeholder = `:v${index++}`;
    values[placeholder] = attribute;
    return placeholder;
  };
  const compare = (path: string, attribute: AttributeValue, depth: number) => {
    if (attribute.S !== undefined || attribute.N !== undefined || attribute.BOOL !== undefined) {
      conditions.push(`${path} = ${value(attribute)}`);
    } else if (attribute.SS !== undefined) {
      conditions.push(`size(${path}) = ${value({ N: String(attribute.SS.length) })}`);
      for (const member of attribute.SS) conditions.push(`contains(${path}, ${value({ S: member })})`);
    } else if (attribute.M !== undefined) {
      conditions.push(`size(${path}) = ${value({ N: String(Object.keys(attribute.M).length) })}`);
      if (depth < 2) for (const [key, child] of Object.entries(attribute.M)) compare(`${path}.${name(key)}`, child, depth + 1);
    } else {
      conditions.push(`attribute_exists(${path})`);
    }
  };
  for (const [attribute, stored] of Object.entries(item)) {
    if (attribute !== 'pk') compare(name(attribute), stored, 0);
  }
  for (const attribute of optional) {
    if (!(attribute in item)) conditions.push(`attribute_not_exists(${name(attribute)})`);
  }
  return { ConditionExpression: conditions.join(' AND '), ExpressionAttributeNames: names, ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }) } as ReturnType<typeof unchanged>;
}

/** Written only where nothing is, or over the leftover factors item read (no account at the new address holds it). */
function absentOrStale(stale: Item | undefined): { ConditionExpression: string; ExpressionAttributeValues?: Item } {
  if (stale === undefined) return { ConditionExpression: 'attribute_not_exists(pk)' };
  return { ConditionExpression: 'attribute_not_exists(pk) OR accountUserId = :staleUserId', ExpressionAttributeValues: { ':staleUserId': stale.accountUserId ?? { S: '' } } };
}

/** A passkey's lookup carried to the new key (`forward`) or back, only while it names this account at the other. */
function lookupUpdate(plan: Pick<SwitchPlan, 'input'>, credentialId: string, direction: 'forward' | 'back') {
  const { input } = plan;
  const [fromKey, toKey, toEmail] = direction === 'forward' ? [input.fromKey, input.toKey, input.to] : [input.toKey, input.fromKey, input.from];
  return {
    Key: key(PASSKEY_KEY_PREFIX + credentialId),
    UpdateExpression: 'SET accountKey = :toKey, email = :toEmail',
    ConditionExpression: 'accountKey = :fromKey AND accountUserId = :userId',
    ExpressionAttributeValues: { ':toKey': { S: toKey }, ':toEmail': { S: toEmail }, ':fromKey': { S: fromKey }, ':userId': { S: input.userId } },
  };
}
