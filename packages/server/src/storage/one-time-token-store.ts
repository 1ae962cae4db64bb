import { DeleteItemCommand, GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { addBelowLimit } from './attempt-counters.js';
import { conditionalUpdate } from './conditional-update.js';
import { isConditionalCheckFailed } from './checks.js';
import { StorageRecordInvalidError, StorageUnavailableError } from './errors.js';
import { ONE_TIME_TOKEN_KEY_PREFIX, TTL_ATTRIBUTE } from './table.js';

/** What a one-time token is for; each account has at most one outstanding token of each kind. */
export type OneTimeTokenPurpose = 'reset' | 'verify' | 'email-change';
/** Every purpose: a password change or reset voids them all, a pending change of address with them (features/email-change). */
export const ONE_TIME_TOKEN_PURPOSES: readonly OneTimeTokenPurpose[] = ['reset', 'verify', 'email-change'];

export interface StoredOneTimeToken {
  /** SHA-256 of the secret (base64url); the secret itself is never stored. */
  tokenHash: string;
  /** The account the token acts on (canonical email: the account item's key). */
  email: string;
  /** Epoch seconds; checked on every read (TTL deletes late). */
  expiresAt: number;
  /** Wrong secrets presented for this token so far. */
  wrongGuesses: number;
  /** An email change's: the address the account moves to (canonical). */
  newEmail?: string;
}

/**
 * One item per account and purpose, `token#<purpose>#<email fingerprint>` (layout in table.ts):
 * a new token replaces the outstanding one (so a new request voids the earlier link), and using
 * it deletes it on the condition that it is still the one presented, so of two racing uses
 * exactly one wins.
 */
export class OneTimeTokenStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async put(purpose: OneTimeTokenPurpose, accountKey: string, token: Omit<StoredOneTimeToken, 'wrongGuesses'>): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            pk: { S: tokenKey(purpose, accountKey) },
            tokenHash: { S: token.tokenHash },
            email: { S: token.email },
            [TTL_ATTRIBUTE]: { N: String(token.expiresAt) },
            wrongGuesses: { N: '0' },
            ...(token.newEmail !== undefined && { newEmail: { S: token.newEmail } }),
          },
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('putOneTimeToken', error);
    }
  }

  /** The outstanding token, expired or not (the caller decides), strongly consistent. */
  async read(purpose: OneTimeTokenPurpose, accountKey: string): Promise<StoredOneTimeToken | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: item } = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: tokenKey(purpose, accountKey) } }, ConsistentRead: true }),
      ));
    } catch (error) {
      throw new StorageUnavailableError('readOneTimeToken', error);
    }
    if (item === undefined) return undefined;
    const number = (name: string) => {
      const value = Number(item[name]?.N ?? '0');
      if (!Number.isSafeInteger(value) || value < 0) throw new StorageRecordInvalidError(`token.${name}`);
      return value;
    };
    const tokenHash = item.tokenHash?.S;
    const email = item.email?.S;
    if (tokenHash === undefined || email === undefined) throw new StorageRecordInvalidError('token');
    const newEmail = item.newEmail?.S;
    return { tokenHash, email, expiresAt: number(TTL_ATTRIBUTE), wrongGuesses: number('wrongGuesses'), ...(newEmail !== undefined && { newEmail }) };
  }

  /**
   * Uses the token: deletes it if it is still the one with `tokenHash`. False when another use
   * (or a newer token) got there first.
   */
  async consume(purpose: OneTimeTokenPurpose, accountKey: string, tokenHash: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: tokenKey(purpose, accountKey) } },
          ConditionExpression: 'tokenHash = :hash',
          ExpressionAttributeValues: { ':hash': { S: tokenHash } },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('consumeOneTimeToken', error);
    }
  }

  /**
   * Voids the account's outstanding token of this purpose, whichever it is (none is no error):
   * after a password change or reset, no link mailed before may act on the account.
   */
  async discard(purpose: OneTimeTokenPurpose, accountKey: string): Promise<void> {
    try {
      await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: tokenKey(purpose, accountKey) } } }));
    } catch (error) {
      throw new StorageUnavailableError('discardOneTimeToken', error);
    }
  }

  /**
   * Voids every outstanding token of the account, one unconditional delete per purpose side by
   * side, no read first: after a password change or reset, no link mailed before (to a mailbox
   * someone else may read) may act on the account afterwards.
   */
  async discardAll(accountKey: string): Promise<void> {
    await Promise.all(ONE_TIME_TOKEN_PURPOSES.map((purpose) => this.discard(purpose, accountKey)));
  }

  /**
   * Reserves one guess against the outstanding token with `tokenHash`, before the presented
   * secret is compared: counted while fewer than `limit` are, so a burst compares no more. The
   * count with this one, or undefined when the token is used up, used or replaced.
   */
  async reserveGuess(purpose: OneTimeTokenPurpose, accountKey: string, tokenHash: string, limit: number): Promise<number | undefined> {
    return addBelowLimit(this.client, this.tableName, 'reserveOneTimeTokenGuess', {
      key: tokenKey(purpose, accountKey),
      attribute: 'wrongGuesses',
      limit,
      condition: 'tokenHash = :hash',
      values: { ':hash': { S: tokenHash } },
    });
  }

  /** A right secret's reservation given back: only wrong ones count toward the limit (best left at 0 otherwise). */
  async giveBackGuess(purpose: OneTimeTokenPurpose, accountKey: string, tokenHash: string): Promise<void> {
    await conditionalUpdate(this.client, this.tableName, 'giveBackOneTimeTokenGuess', {
      Key: { pk: { S: tokenKey(purpose, accountKey) } },
      UpdateExpression: 'ADD wrongGuesses :minusOne',
      ConditionExpression: 'tokenHash = :hash AND wrongGuesses > :zero',
      ExpressionAttributeValues: { ':minusOne': { N: '-1' }, ':hash': { S: tokenHash }, ':zero': { N: '0' } },
    });
  }

}

export function tokenKey(purpose: OneTimeTokenPurpose, accountKey: string): string {
  return `${ONE_TIME_TOKEN_KEY_PREFIX}${purpose}#${accountKey}`;
}
