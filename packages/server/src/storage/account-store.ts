import {
  GetItemCommand,
  QueryCommand,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  AccountExistsError,
  HashChangedError,
  StorageRecordInvalidError,
  StorageUnavailableError,
} from './errors.js';
import { assertPositiveInteger, isConditionalCheckFailed } from './checks.js';
import { USER_ID_INDEX, MFA_KEY_PREFIX, USER_KEY_PREFIX } from './table.js';
import type { AccountEvent } from '../events/account-event.js';
import { EventOutbox } from './event-outbox.js';

export interface UserRecord {
  userId: string;
  /** In canonical form, by the caller (packages/server/src/accounts/canonical-email.ts). */
  email: string;
  /** Opaque to the store. */
  passwordHash: string;
  createdAt: Date;
  /** Set by password changes and resets, not by rehashes: compare with token `iat`. */
  passwordChangedAt?: Date;
  /** True once the owner followed a verification link; absent on accounts made before verification was on. */
  emailVerified?: boolean;
  /** Set by an operator's disable (cleared by enable): no login, refresh or access token of the account is honoured. */
  disabledAt?: Date;
  /** Who disabled it: an operator's identity (an IAM principal's ARN, an admin key's id); never a secret. */
  disabledBy?: string;
}

/** One account as an operator's list shows it (listUsers): no hash. */
export interface ListedUser {
  userId: string;
  email: string;
  createdAt: string;
  emailVerified?: boolean;
  disabledAt?: string;
}

export interface ListUsersPage {
  users: ListedUser[];
  /** The pk to start after for the next page; absent at the end of the table. */
  lastKey?: string;
}

export interface NewUser {
  email: string;
  userId: string;
  passwordHash: string;
  createdAt: Date;
  /** False when registration sends a verification mail; unset when it does not. */
  emailVerified?: boolean;
}

/**
 * 'rehash' re-encodes the same password under new parameters (same secret, sessions stay valid);
 * the others change the secret and set passwordChangedAt ('factor-undo' and 'email-change-undo' store
 * no password at all until a reset: features/mfa/undo-factor.ts, features/email-change/undo-email-change.ts).
 */
export type PasswordHashChangeReason = 'rehash' | 'password-change' | 'password-reset' | 'factor-undo' | 'email-change-undo';

export interface ReplacePasswordHashInput {
  email: string;
  /** The hash the caller read and verified against; the write only lands if it is still stored. */
  expectedHash: string;
  newHash: string;
  reason: PasswordHashChangeReason;
  now?: Date;
}

export interface ScanAccountsInput {
  /** 0-based; with totalSegments, one slice of a parallel Scan. */
  segment: number;
  totalSegments: number;
  /** The `lastKey` of the previous page of this segment, or the pk of the last item handled. */
  startKey?: string;
  /** Items read per page, before the filter (DynamoDB's Limit); default 100. */
  limit?: number;
  /** Also count the accounts' active second factors (`passlane inventory`), in the same Scan. */
  factors?: boolean;
}

/**
 * An account item as scanned, attributes as stored: a corrupt item is returned (fields missing),
 * not thrown, so a bulk job can report it by userId and go on.
 */
export interface ScannedAccount {
  /** The partition key ("user#" + email). */
  pk: string;
  email?: string;
  userId?: string;
  passwordHash?: string;
  /** True when an operator disabled the account (its `disabledAt`, not read further). */
  disabled?: boolean;
}

/** The second factors of the accounts on one page of a Scan (`passlane inventory`). */
export interface FactorCounts {
  /** Accounts with an active TOTP. */
  totp: number;
  /** Accounts with at least one passkey, and their passkeys in all. */
  passkeyAccounts: number;
  passkeys: number;
  /** Accounts with recovery codes left (the set goes with the last code used, or the last factor removed). */
  recoveryCodes: number;
}

export interface ScanAccountsPage {
  items: ScannedAccount[];
  /** With `factors`: what the factors items on this page hold (never part of `items`). */
  factors?: FactorCounts;
  /** Absent when the segment is finished. */
  lastKey?: string;
}

/**
 * Accounts on the one DynamoDB table (layout in table.ts); rate-limit counters and job cursors
 * have stores of their own. Every write that can race is conditional. SDK errors other than lost conditions become
 * StorageUnavailableError, so no caller decides authentication without storage. Nothing here
 * logs; error messages carry no emails or hashes. The writes that change an account take the
 * account events to record with the change (`events`, written by the outbox: event-outbox.ts).
 */
export class AccountStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly outbox = new EventOutbox(client, tableName),
  ) {}

  /** Throws AccountExistsError if the email is taken. */
  async createUser(user: NewUser, events: readonly AccountEvent[] = []): Promise<void> {
    const createdAt = user.createdAt.toISOString();
    try {
      await this.outbox.write(
        {
          Put: {
            TableName: this.tableName,
            Item: {
              pk: { S: userKey(user.email) },
              userId: { S: user.userId },
              email: { S: user.email },
              passwordHash: { S: user.passwordHash },
              createdAt: { S: createdAt },
              updatedAt: { S: createdAt },
              ...(user.emailVerified !== undefined && { emailVerified: { BOOL: user.emailVerified } }),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            // The failed condition hands back the stored item, so telling our own landed retry
            // from a duplicate needs no GetItem (the register role may not read accounts).
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        events,
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw new StorageUnavailableError('createUser', error);
      // The SDK retries timeouts; if an earlier attempt of this very call landed, the retry
      // fails its condition against our own item. That is success, not a duplicate.
      const stored = await this.storedAfterFailedCondition(error, user.email);
      if (stored?.userId === user.userId && stored.passwordHash === user.passwordHash) return;
      throw new AccountExistsError({ cause: error });
    }
  }

  /** Strongly consistent read, so a login right after registration or a password change sees it. */
  async getUserByEmail(email: string): Promise<UserRecord | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      const result = await this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: userKey(email) } },
          ConsistentRead: true,
        }),
      );
      item = result.Item;
    } catch (error) {
      throw new StorageUnavailableError('getUserByEmail', error);
    }
    return item === undefined ? undefined : toUserRecord(item);
  }

  /**
   * The account behind a userId (from an access token). The index is eventually consistent, so
   * the record itself is then read consistently and must still carry that userId.
   */
  async getUserById(userId: string): Promise<UserRecord | undefined> {
    let email: string | undefined;
    try {
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: USER_ID_INDEX,
          KeyConditionExpression: 'userId = :userId',
          ExpressionAttributeValues: { ':userId': { S: userId } },
          Limit: 1,
        }),
      );
      const pk = result.Items?.[0]?.pk?.S;
      if (pk?.startsWith(USER_KEY_PREFIX)) email = pk.slice(USER_KEY_PREFIX.length);
    } catch (error) {
      throw new StorageUnavailableError('getUserById', error);
    }
    if (email === undefined) return undefined;
    const user = await this.getUserByEmail(email);
    return user?.userId === userId ? user : undefined;
  }

  /** The owner proved the mailbox. False when the account is gone. */
  async markEmailVerified(email: string, now = new Date(), events: readonly AccountEvent[] = []): Promise<boolean> {
    try {
      await this.outbox.write(
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: { S: userKey(email) } },
            UpdateExpression: 'SET emailVerified = :true, updatedAt = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':true': { BOOL: true }, ':now': { S: now.toISOString() } },
          },
        },
        events,
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('markEmailVerified', error);
    }
  }

  /**
   * Compare-and-swap of the password hash. Throws HashChangedError if the stored hash is no
   * longer `expectedHash` (e.g. a stale rehash after a password change) or the account is gone.
   */
  async replacePasswordHash(input: ReplacePasswordHashInput, events: readonly AccountEvent[] = []): Promise<void> {
    const now = (input.now ?? new Date()).toISOString();
    const changesSecret = input.reason !== 'rehash';
    try {
      await this.outbox.write(
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: { S: userKey(input.email) } },
            ConditionExpression: 'attribute_exists(pk) AND passwordHash = :expected',
            UpdateExpression: changesSecret
              ? 'SET passwordHash = :new, updatedAt = :now, passwordChangedAt = :now'
              : 'SET passwordHash = :new, updatedAt = :now',
            ExpressionAttributeValues: {
              ':expected': { S: input.expectedHash },
              ':new': { S: input.newHash },
              ':now': { S: now },
            },
            // As in createUser: the failed condition hands back what is stored.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        events,
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) {
        throw new StorageUnavailableError('replacePasswordHash', error);
      }
      // Same retry case as createUser: hashes are salted, so finding exactly our new hash
      // means our own earlier attempt landed. No item: the account is gone.
      const stored = await this.storedAfterFailedCondition(error, input.email);
      if (stored?.passwordHash === input.newHash) return;
      throw new HashChangedError({ cause: error });
    }
  }

  /**
   * Deletes the account item, only while it is this account's (an address registered again
   * since is another account). False when it is gone or another's.
   */
  async deleteUser(email: string, userId: string, events: readonly AccountEvent[] = []): Promise<boolean> {
    try {
      await this.outbox.write(
        {
          Delete: {
            TableName: this.tableName,
            Key: { pk: { S: userKey(email) } },
            ConditionExpression: 'userId = :userId',
            ExpressionAttributeValues: { ':userId': { S: userId } },
          },
        },
        events,
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('deleteUser', error);
    }
  }

  /**
   * Marks the account disabled (`disabled`: when and by whom) or enabled again (undefined), only
   * while the item is this account's. False when it is gone or another's.
   */
  async setDisabled(email: string, userId: string, disabled: { at: Date; by: string } | undefined, now: Date, events: readonly AccountEvent[] = []): Promise<boolean> {
    const values: Record<string, AttributeValue> = { ':userId': { S: userId }, ':now': { S: now.toISOString() } };
    if (disabled !== undefined) {
      values[':at'] = { S: disabled.at.toISOString() };
      values[':by'] = { S: disabled.by };
    }
    try {
      await this.outbox.write(
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: { S: userKey(email) } },
            UpdateExpression: disabled !== undefined ? 'SET disabledAt = :at, disabledBy = :by, updatedAt = :now' : 'SET updatedAt = :now REMOVE disabledAt, disabledBy',
            ConditionExpression: 'userId = :userId',
            ExpressionAttributeValues: values,
          },
        },
        events,
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('setDisabled', error);
    }
  }

  /**
   * One page of accounts for an operator's list: a Scan of the table from `startKey` (the last
   * pk of the previous page), accounts only, read until `limit` are found or the table ends.
   * Eventually consistent; never a hash.
   */
  async listUsers(input: { startKey?: string; limit: number }): Promise<ListUsersPage> {
    assertPositiveInteger('limit', input.limit);
    const users: ListedUser[] = [];
    let startKey = input.startKey;
    try {
      do {
        const result = await this.client.send(
          new ScanCommand({
            TableName: this.tableName,
            Limit: Math.max(100, input.limit),
            ...(startKey !== undefined && { ExclusiveStartKey: { pk: { S: startKey } } }),
            FilterExpression: 'begins_with(#pk, :userPrefix)',
            ProjectionExpression: '#pk, #email, #userId, #createdAt, #emailVerified, #disabledAt',
            ExpressionAttributeNames: { '#pk': 'pk', '#email': 'email', '#userId': 'userId', '#createdAt': 'createdAt', '#emailVerified': 'emailVerified', '#disabledAt': 'disabledAt' },
            ExpressionAttributeValues: { ':userPrefix': { S: USER_KEY_PREFIX } },
          }),
        );
        startKey = result.LastEvaluatedKey?.pk?.S;
        for (const item of result.Items ?? []) {
          users.push({
            userId: item.userId?.S ?? '',
            email: item.email?.S ?? '',
            createdAt: item.createdAt?.S ?? '',
            ...(item.emailVerified?.BOOL !== undefined && { emailVerified: item.emailVerified.BOOL }),
            ...(item.disabledAt?.S !== undefined && { disabledAt: item.disabledAt.S }),
          });
          if (users.length === input.limit) {
            // Cut mid-page: the next page starts after this item (any item's key resumes a Scan).
            const more = startKey !== undefined || item !== result.Items!.at(-1);
            return { users, ...(more && item.pk?.S !== undefined && { lastKey: item.pk.S }) };
          }
        }
      } while (startKey !== undefined);
    } catch (error) {
      throw new StorageUnavailableError('listUsers', error);
    }
    return { users };
  }

  /**
   * What is stored when a write's condition failed: from the error (ALL_OLD), so no read (and no
   * GetItem in the register, login and rehash roles) is needed to judge it. DynamoDB and
   * DynamoDB Local return the item whenever there is one; dynalite ignores the option, and an
   * account that is gone has no item, so only then is it read (a read those roles may not make,
   * which then fails as storage trouble: the write is not confirmed).
   */
  private async storedAfterFailedCondition(error: unknown, email: string): Promise<{ userId?: string; passwordHash?: string } | undefined> {
    const old = (error as { Item?: Record<string, AttributeValue> }).Item;
    return old !== undefined ? { userId: old.userId?.S, passwordHash: old.passwordHash?.S } : this.getUserByEmail(email);
  }

  /**
   * One page of one segment of a parallel Scan over accounts only (rate-limit and job items are
   * filtered out, so a page may hold fewer than `limit` items, even none, and still have a
   * lastKey). Eventually consistent: bulk jobs write conditionally on what they read.
   */
  async scanAccounts(input: ScanAccountsInput): Promise<ScanAccountsPage> {
    const limit = input.limit ?? 100;
    assertPositiveInteger('totalSegments', input.totalSegments);
    assertPositiveInteger('limit', limit);
    if (!Number.isSafeInteger(input.segment) || input.segment < 0 || input.segment >= input.totalSegments) {
      throw new RangeError('segment must be an integer from 0 to totalSegments - 1');
    }
    try {
      const result = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          Segment: input.segment,
          TotalSegments: input.totalSegments,
          Limit: limit,
          ...(input.startKey !== undefined && { ExclusiveStartKey: { pk: { S: input.startKey } } }),
          ...(input.factors === true
            ? {
                // Of a factors item, what tells which factors it holds, never a sealed secret: TOTP's
                // activation time, the passkeys (public keys) and the recovery codes' hashes, to count them.
                FilterExpression:
                  'begins_with(#pk, :userPrefix) OR (begins_with(#pk, :mfaPrefix) AND (attribute_exists(#totpEnabledAt) OR attribute_exists(#passkeys) OR attribute_exists(#recoveryCodes)))',
                ProjectionExpression: '#pk, #email, #userId, #passwordHash, #disabledAt, #totpEnabledAt, #passkeys, #recoveryCodes',
                ExpressionAttributeNames: {
                  '#pk': 'pk',
                  '#email': 'email',
                  '#userId': 'userId',
                  '#passwordHash': 'passwordHash',
                  '#disabledAt': 'disabledAt',
                  '#totpEnabledAt': 'totpEnabledAt',
                  '#passkeys': 'passkeys',
                  '#recoveryCodes': 'recoveryCodes',
                },
                ExpressionAttributeValues: { ':userPrefix': { S: USER_KEY_PREFIX }, ':mfaPrefix': { S: MFA_KEY_PREFIX } },
              }
            : {
                FilterExpression: 'begins_with(#pk, :userPrefix)',
                ProjectionExpression: '#pk, #email, #userId, #passwordHash, #disabledAt',
                ExpressionAttributeNames: { '#pk': 'pk', '#email': 'email', '#userId': 'userId', '#passwordHash': 'passwordHash', '#disabledAt': 'disabledAt' },
                ExpressionAttributeValues: { ':userPrefix': { S: USER_KEY_PREFIX } },
              }),
        }),
      );
      const scanned = result.Items ?? [];
      const factors = countFactors(scanned.filter((item) => item.pk?.S?.startsWith(MFA_KEY_PREFIX) === true));
      const lastKey = result.LastEvaluatedKey?.pk?.S;
      const items = scanned.filter((item) => item.pk?.S?.startsWith(MFA_KEY_PREFIX) !== true).map((item) => ({
        pk: item.pk?.S ?? '',
        email: item.email?.S,
        userId: item.userId?.S,
        passwordHash: item.passwordHash?.S,
        ...(item.disabledAt !== undefined && { disabled: true }),
      }));
      return { items, ...(input.factors === true && { factors }), ...(lastKey !== undefined && { lastKey }) };
    } catch (error) {
      throw new StorageUnavailableError('scanAccounts', error);
    }
  }

}

export function userKey(email: string): string {
  return USER_KEY_PREFIX + email;
}

export function toUserRecord(item: Record<string, AttributeValue>): UserRecord {
  const record: UserRecord = {
    userId: requiredString(item, 'userId'),
    email: requiredString(item, 'email'),
    passwordHash: requiredString(item, 'passwordHash'),
    createdAt: requiredDate(item, 'createdAt'),
  };
  if (item.passwordChangedAt !== undefined) {
    record.passwordChangedAt = requiredDate(item, 'passwordChangedAt');
  }
  if (item.emailVerified?.BOOL !== undefined) record.emailVerified = item.emailVerified.BOOL;
  if (item.disabledAt !== undefined) record.disabledAt = requiredDate(item, 'disabledAt');
  if (item.disabledBy?.S !== undefined) record.disabledBy = item.disabledBy.S;
  return record;
}

function requiredString(item: Record<string, AttributeValue>, name: string): string {
  const value = item[name]?.S;
  if (value === undefined || value === '') throw new StorageRecordInvalidError(`user.${name}`);
  return value;
}

function requiredDate(item: Record<string, AttributeValue>, name: string): Date {
  const date = new Date(requiredString(item, name));
  if (Number.isNaN(date.getTime())) throw new StorageRecordInvalidError(`user.${name}`);
  return date;
}

/** What factors items hold, as projected by scanAccounts (an empty passkeys map is no passkey). */
function countFactors(items: ReadonlyArray<Record<string, AttributeValue>>): FactorCounts {
  const counts: FactorCounts = { totp: 0, passkeyAccounts: 0, passkeys: 0, recoveryCodes: 0 };
  for (const item of items) {
    const passkeys = Object.keys(item.passkeys?.M ?? {}).length;
    if (item.totpEnabledAt !== undefined) counts.totp++;
    if (passkeys > 0) counts.passkeyAccounts++;
    counts.passkeys += passkeys;
    if ((item.recoveryCodes?.SS?.length ?? 0) > 0) counts.recoveryCodes++;
  }
  return counts;
}
