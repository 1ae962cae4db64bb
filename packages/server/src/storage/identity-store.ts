import { DeleteItemCommand, GetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { conditionalUpdate, conditionalUpdateWithEvents } from './conditional-update.js';
import type { AccountEvent } from '../events/account-event.js';
import { EventOutbox } from './event-outbox.js';
import { isConditionalCheckFailed } from './checks.js';
import { StorageRecordInvalidError, StorageUnavailableError } from './errors.js';
import { textAttribute, wholeNumberAttribute } from './item-attributes.js';
import { IDENTITIES_KEY_PREFIX, IDENTITY_KEY_PREFIX } from './table.js';

/** Whose a provider's identity is: the lookup a federated sign-in starts from. */
export interface IdentityLookup {
  userId: string;
  /** The account's canonical email (its item's key) and fingerprint. */
  email: string;
  accountKey: string;
}

/** One identity of an account, as its list shows it. */
export interface LinkedIdentity {
  /** The list's key for it (features/federation/identity-id.ts). */
  id: string;
  provider: string;
  subject: string;
  /** The provider's email when linked (canonical form), if it gave one. */
  email?: string;
  /** Epoch seconds. */
  linkedAt: number;
}

/**
 * Identities at providers (layout in table.ts): `identity#<provider>#<subject>`, whose account an
 * identity is, put only if absent (one identity, one account, whatever races), and
 * `identities#<account key>`, the account's identities as a map, which GET /identities lists and
 * whose removal is conditional on what else opens the account. No transactions (dynalite lacks
 * them): the feature orders the writes so that each step can be taken again
 * (features/federation/README.md). A link's claim and a removal take the account events to
 * record with them (event-outbox.ts).
 */
export class IdentityStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly outbox = new EventOutbox(client, tableName),
  ) {}

  /** Claims the identity for an account: false when it is someone's already. */
  async claim(provider: string, subject: string, lookup: IdentityLookup, now: Date, events: readonly AccountEvent[] = []): Promise<boolean> {
    try {
      await this.outbox.write(
        {
          Put: {
            TableName: this.tableName,
            Item: {
              pk: { S: identityKey(provider, subject) },
              // Not `userId`: the userId index is the accounts' alone (table.ts).
              accountUserId: { S: lookup.userId },
              email: { S: lookup.email },
              accountKey: { S: lookup.accountKey },
              createdAt: { N: String(Math.floor(now.getTime() / 1000)) },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        events,
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('claimIdentity', error);
    }
  }

  /** Strongly consistent: a sign-in right after another's claim sees it. */
  async read(provider: string, subject: string): Promise<IdentityLookup | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: item } = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: identityKey(provider, subject) } }, ConsistentRead: true })));
    } catch (error) {
      throw new StorageUnavailableError('readIdentity', error);
    }
    if (item === undefined) return undefined;
    return { userId: textAttribute(item, 'accountUserId', 'identity'), email: textAttribute(item, 'email', 'identity'), accountKey: textAttribute(item, 'accountKey', 'identity') };
  }

  /** Deletes the lookup if it is still that account's: false when it is gone or another's. */
  async release(provider: string, subject: string, userId: string, events: readonly AccountEvent[] = []): Promise<boolean> {
    try {
      await this.outbox.write(
        {
          Delete: {
            TableName: this.tableName,
            Key: { pk: { S: identityKey(provider, subject) } },
            ConditionExpression: 'accountUserId = :userId',
            ExpressionAttributeValues: { ':userId': { S: userId } },
          },
        },
        events,
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('releaseIdentity', error);
    }
  }

  /** Adds the identity to the account's list unless it is there (then it is left as it was). */
  async record(accountKey: string, userId: string, identity: LinkedIdentity): Promise<void> {
    const entry: AttributeValue = { M: entryAttributes(identity) };
    for (let attempt = 1; attempt <= 3; attempt++) {
      // A map's key SET is refused on a missing map: the first identity writes the map itself.
      const added = await conditionalUpdate(this.client, this.tableName, 'recordIdentity', {
        Key: { pk: { S: identitiesKey(accountKey) } },
        UpdateExpression: 'SET identities.#id = if_not_exists(identities.#id, :entry)',
        ConditionExpression: 'attribute_exists(identities) AND accountUserId = :userId',
        ExpressionAttributeNames: { '#id': identity.id },
        ExpressionAttributeValues: { ':entry': entry, ':userId': { S: userId } },
      });
      if (added) return;
      const created = await conditionalUpdate(this.client, this.tableName, 'recordIdentity', {
        Key: { pk: { S: identitiesKey(accountKey) } },
        UpdateExpression: 'SET identities = :map, accountUserId = :userId',
        // An item of an account gone before (same email, another userId) is replaced.
        ConditionExpression: 'attribute_not_exists(identities) OR accountUserId <> :userId',
        ExpressionAttributeValues: { ':map': { M: { [identity.id]: entry } }, ':userId': { S: userId } },
      });
      if (created) return;
    }
    throw new StorageUnavailableError('recordIdentity', new Error('the identities item kept changing'));
  }

  /** The account's identities, oldest first; none when its item belongs to another userId (an account gone before). */
  async list(accountKey: string, userId: string): Promise<LinkedIdentity[]> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: item } = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: identitiesKey(accountKey) } }, ConsistentRead: true })));
    } catch (error) {
      throw new StorageUnavailableError('listIdentities', error);
    }
    if (item === undefined || item.accountUserId?.S !== userId) return [];
    const map = item.identities?.M;
    if (map === undefined) throw new StorageRecordInvalidError('identities.identities');
    return Object.entries(map)
      .map(([id, value]) => readEntry(id, value))
      .sort((a, b) => a.linkedAt - b.linkedAt || a.id.localeCompare(b.id));
  }

  /**
   * Takes the identity off the account's list. With `keepOne`, only while another stays (the
   * account's only other way in): of two removals racing for the last two, one loses. False when
   * it was not listed or the condition failed.
   */
  async unlist(accountKey: string, userId: string, id: string, options: { keepOne: boolean }, events: readonly AccountEvent[] = []): Promise<boolean> {
    return conditionalUpdateWithEvents(
      this.outbox,
      this.tableName,
      'unlistIdentity',
      {
        Key: { pk: { S: identitiesKey(accountKey) } },
        UpdateExpression: 'REMOVE identities.#id',
        ConditionExpression: `accountUserId = :userId AND attribute_exists(identities.#id)${options.keepOne ? ' AND size(identities) > :one' : ''}`,
        ExpressionAttributeNames: { '#id': id },
        ExpressionAttributeValues: { ':userId': { S: userId }, ...(options.keepOne && { ':one': { N: '1' } }) },
      },
      events,
    );
  }

  /** Points the lookup at the account's new address (a change of email): only while it is this account's. */
  async repoint(provider: string, subject: string, userId: string, to: { email: string; accountKey: string }): Promise<boolean> {
    return conditionalUpdate(this.client, this.tableName, 'repointIdentity', {
      Key: { pk: { S: identityKey(provider, subject) } },
      UpdateExpression: 'SET email = :email, accountKey = :accountKey',
      ConditionExpression: 'accountUserId = :userId',
      ExpressionAttributeValues: { ':email': { S: to.email }, ':accountKey': { S: to.accountKey }, ':userId': { S: userId } },
    });
  }

  /** Deletes the account's list (its deletion, or its move to a new key): only while it is this account's. */
  async forget(accountKey: string, userId: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: identitiesKey(accountKey) } },
          ConditionExpression: 'accountUserId = :userId',
          ExpressionAttributeValues: { ':userId': { S: userId } },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) return;
      throw new StorageUnavailableError('forgetIdentities', error);
    }
  }
}

function entryAttributes(identity: LinkedIdentity): Record<string, AttributeValue> {
  return {
    provider: { S: identity.provider },
    subject: { S: identity.subject },
    ...(identity.email !== undefined && { email: { S: identity.email } }),
    linkedAt: { N: String(identity.linkedAt) },
  };
}

function readEntry(id: string, value: AttributeValue): LinkedIdentity {
  const entry = value.M;
  if (entry === undefined) throw new StorageRecordInvalidError('identities.entry');
  const email = entry.email?.S;
  return {
    id,
    provider: textAttribute(entry, 'provider', 'identities.entry'),
    subject: textAttribute(entry, 'subject', 'identities.entry'),
    ...(email !== undefined && { email }),
    linkedAt: wholeNumberAttribute(entry, 'linkedAt', 'identities.entry'),
  };
}

function identityKey(provider: string, subject: string): string {
  return `${IDENTITY_KEY_PREFIX}${provider}#${subject}`;
}

function identitiesKey(accountKey: string): string {
  return `${IDENTITIES_KEY_PREFIX}${accountKey}`;
}
