import { DeleteItemCommand, GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { StorageRecordInvalidError, StorageUnavailableError } from './errors.js';
import { textAttribute, wholeNumberAttribute } from './item-attributes.js';
import { FACTOR_UNDO_KEY_PREFIX, TTL_ATTRIBUTE } from './table.js';

/** Which factor a "this wasn't me" link takes away: a TOTP secret (sealed, as stored) or a passkey (its credential id). */
export type UndoableFactor = { kind: 'totp'; sealedSecret: string } | { kind: 'passkey'; credentialId: string };

/** An outstanding "this wasn't me" link of a factor just added (features/mfa/undo-factor.ts). */
export interface StoredFactorUndo {
  userId: string;
  /** The account's canonical email (the account item's key). */
  email: string;
  factor: UndoableFactor;
  /** Epoch seconds; checked on every read (TTL deletes late). */
  expiresAt: number;
}

/**
 * One item per link, `token#undo#<email fingerprint>#<SHA-256 of the secret>` (layout in
 * table.ts), not one per account as the reset and verification tokens are: each factor added
 * mails its own link, and a second factor's mail must not void the first's (an attacker's second
 * factor would otherwise hide the first). A password reset leaves them too: the owner may need
 * them after it. Keyed by the secret's hash, a wrong secret finds no item (256 bits: nothing to
 * count). Used by a conditional delete, so of two racing uses exactly one wins.
 */
export class FactorUndoStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async put(accountKey: string, tokenHash: string, undo: StoredFactorUndo): Promise<void> {
    const factor: Record<string, AttributeValue> =
      undo.factor.kind === 'totp' ? { factor: { S: 'totp' }, sealedSecret: { S: undo.factor.sealedSecret } } : { factor: { S: 'passkey' }, credentialId: { S: undo.factor.credentialId } };
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: { pk: { S: undoKey(accountKey, tokenHash) }, accountUserId: { S: undo.userId }, email: { S: undo.email }, ...factor, [TTL_ATTRIBUTE]: { N: String(undo.expiresAt) } },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('putFactorUndo', error);
    }
  }

  /** The link's item, expired or not (the caller decides), strongly consistent. */
  async read(accountKey: string, tokenHash: string): Promise<StoredFactorUndo | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: item } = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: undoKey(accountKey, tokenHash) } }, ConsistentRead: true })));
    } catch (error) {
      throw new StorageUnavailableError('readFactorUndo', error);
    }
    if (item === undefined) return undefined;
    const kind = item.factor?.S;
    let factor: UndoableFactor;
    if (kind === 'totp') factor = { kind, sealedSecret: textAttribute(item, 'sealedSecret', 'undo') };
    else if (kind === 'passkey') factor = { kind, credentialId: textAttribute(item, 'credentialId', 'undo') };
    else throw new StorageRecordInvalidError('undo.factor');
    return { userId: textAttribute(item, 'accountUserId', 'undo'), email: textAttribute(item, 'email', 'undo'), factor, expiresAt: wholeNumberAttribute(item, TTL_ATTRIBUTE, 'undo') };
  }

  /** Uses the link: deleted if it is still there. False when another use got there first. */
  async consume(accountKey: string, tokenHash: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: undoKey(accountKey, tokenHash) } }, ConditionExpression: 'attribute_exists(pk)' }));
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('consumeFactorUndo', error);
    }
  }
}

export function undoKey(accountKey: string, tokenHash: string): string {
  return `${FACTOR_UNDO_KEY_PREFIX}${accountKey}#${tokenHash}`;
}
