import { DeleteItemCommand, GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { StorageUnavailableError } from './errors.js';
import { textAttribute, wholeNumberAttribute } from './item-attributes.js';
import { EMAIL_UNDO_KEY_PREFIX, TTL_ATTRIBUTE } from './table.js';

/** An outstanding "this wasn't me" link of an address change, mailed to the old address (features/email-change). */
export interface StoredEmailUndo {
  userId: string;
  /** Canonical: the address the account left, which the link puts back, and the one it moved to. */
  oldEmail: string;
  newEmail: string;
  /** Epoch seconds; checked on every read (TTL deletes late). */
  expiresAt: number;
}

/**
 * One item per link, `token#email-undo#<old address's fingerprint>#<SHA-256 of the secret>`
 * (layout in table.ts): each change mails its own, and a later change must not void an earlier
 * one's (an attacker's second change would otherwise hide the first). A password change or reset
 * leaves them: the old mailbox's owner may need them after one. Keyed by the secret's hash, a
 * wrong secret finds no item (256 bits: nothing to count). Used by a conditional delete, so of two
 * racing uses exactly one wins.
 */
export class EmailUndoStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async put(accountKey: string, tokenHash: string, undo: StoredEmailUndo): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            pk: { S: emailUndoKey(accountKey, tokenHash) },
            accountUserId: { S: undo.userId },
            oldEmail: { S: undo.oldEmail },
            newEmail: { S: undo.newEmail },
            [TTL_ATTRIBUTE]: { N: String(undo.expiresAt) },
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('putEmailUndo', error);
    }
  }

  /** The link's item, expired or not (the caller decides), strongly consistent. */
  async read(accountKey: string, tokenHash: string): Promise<StoredEmailUndo | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: item } = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: emailUndoKey(accountKey, tokenHash) } }, ConsistentRead: true })));
    } catch (error) {
      throw new StorageUnavailableError('readEmailUndo', error);
    }
    if (item === undefined) return undefined;
    return {
      userId: textAttribute(item, 'accountUserId', 'email-undo'),
      oldEmail: textAttribute(item, 'oldEmail', 'email-undo'),
      newEmail: textAttribute(item, 'newEmail', 'email-undo'),
      expiresAt: wholeNumberAttribute(item, TTL_ATTRIBUTE, 'email-undo'),
    };
  }

  /** Uses the link: deleted if it is still there. False when another use got there first. */
  async consume(accountKey: string, tokenHash: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: emailUndoKey(accountKey, tokenHash) } }, ConditionExpression: 'attribute_exists(pk)' }));
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('consumeEmailUndo', error);
    }
  }
}

export function emailUndoKey(accountKey: string, tokenHash: string): string {
  return `${EMAIL_UNDO_KEY_PREFIX}${accountKey}#${tokenHash}`;
}
