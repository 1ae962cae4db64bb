import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { conditionalUpdateWithEvents } from './conditional-update.js';
import type { AccountEvent } from '../events/account-event.js';
import { EventOutbox } from './event-outbox.js';
import { StorageRecordInvalidError, StorageUnavailableError } from './errors.js';
import { textAttribute, wholeNumberAttribute } from './item-attributes.js';
import { CLEAR_FACTOR_FAILURES, PASSKEY_KEY_PREFIX, TTL_ATTRIBUTE, WEBAUTHN_CHALLENGE_KEY_PREFIX, mfaKey } from './table.js';

/**
 * One passkey (a WebAuthn credential) as stored in the account's `mfa#` item, in its `passkeys`
 * map under the credential id (base64url). Only the public key: a copy of the table signs nothing.
 */
export interface StoredPasskey {
  /** The COSE public key. */
  publicKey: Uint8Array;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  transports: string[];
  /** Fixed for a credential's life: a synced passkey (multi-device) or one bound to its device. */
  backupEligible: boolean;
  backedUp: boolean;
  name: string;
  /** Epoch seconds. */
  createdAt: number;
  lastUsedAt?: number;
  aaguid: string;
}

/** `passkey#<credential id>`: which account a credential belongs to, for a login without an email. */
export interface PasskeyLookup {
  userId: string;
  accountKey: string;
  /** The account's canonical email (the account item's key). */
  email: string;
}

/** A WebAuthn challenge waiting for its answer, `webauthn#<SHA-256 of the challenge>`. */
export interface StoredChallenge {
  purpose: 'registration' | 'login';
  /** The account a registration's challenge was made for (none for a passwordless login's). */
  userId?: string;
  accountKey?: string;
  /** Epoch seconds; checked on read (TTL deletes late). */
  expiresAt: number;
}

/** What a passkey's use writes: the new counter, the backup state, when. */
export interface PasskeyUse {
  counter: number;
  backedUp: boolean;
  lastUsedAt: number;
}

/**
 * Passkeys, their lookup items and WebAuthn challenges (layout in table.ts). No
 * TransactWriteItems (dynalite lacks it): a registration writes the lookup first (refused if the
 * credential is registered anywhere), then the `mfa#` item, and undoes the lookup when that
 * fails; a login refuses a lookup whose account does not hold the passkey (stale). Every change
 * to a passkey is conditional: added only if absent and below the limit, renamed or removed only
 * if present, its counter moved only from the value read (of two uses of one assertion one wins).
 * An addition and a removal take the account events to record with them (event-outbox.ts).
 */
export class PasskeyStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly outbox = new EventOutbox(client, tableName),
  ) {}

  /**
   * Adds a passkey to the account's factors: only while it is not there and the account has
   * fewer than `max`; with `recoveryCodes` (the account's first factor), only while the account
   * has no factor, and the codes are set with it. False when a condition failed (re-read to see why).
   */
  async add(
    accountKey: string,
    input: { userId: string; credentialId: string; passkey: StoredPasskey; max: number; hadPasskeys: boolean; recoveryCodes?: readonly string[] },
    events: readonly AccountEvent[] = [],
  ): Promise<boolean> {
    const names: Record<string, string> = { '#id': input.credentialId };
    const values: Record<string, AttributeValue> = { ':userId': { S: input.userId } };
    const sets = ['accountUserId = if_not_exists(accountUserId, :userId)'];
    const conditions: string[] = [];
    if (input.hadPasskeys) {
      // A map's key SET is refused on a missing map: the first passkey writes the map itself.
      sets.push('passkeys.#id = :passkey');
      values[':passkey'] = { M: passkeyAttributes(input.passkey) };
      values[':max'] = { N: String(input.max) };
      conditions.push('attribute_exists(passkeys) AND attribute_not_exists(passkeys.#id) AND size(passkeys) < :max');
    } else {
      delete names['#id'];
      sets.push('passkeys = :passkeys');
      values[':passkeys'] = { M: { [input.credentialId]: { M: passkeyAttributes(input.passkey) } } };
      values[':zero'] = { N: '0' };
      conditions.push('(attribute_not_exists(passkeys) OR size(passkeys) = :zero)');
    }
    if (input.recoveryCodes !== undefined) {
      sets.push('recoveryCodes = :codes');
      values[':codes'] = { SS: [...input.recoveryCodes] };
      conditions.push('attribute_not_exists(totpSecret)');
    }
    return this.conditional('addPasskey', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
      ExpressionAttributeValues: values,
    }, events);
  }

  /** A new name, only while the passkey is there (false otherwise). */
  async rename(accountKey: string, credentialId: string, name: string): Promise<boolean> {
    return this.conditional('renamePasskey', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: 'SET passkeys.#id.#name = :name',
      ConditionExpression: 'attribute_exists(passkeys.#id)',
      ExpressionAttributeNames: { '#id': credentialId, '#name': 'name' },
      ExpressionAttributeValues: { ':name': { S: name } },
    });
  }

  /**
   * Removes a passkey while it is there. `lastFactor`: it is the account's only factor, and the
   * recovery codes go with it, on the condition that no other factor exists; otherwise on the
   * condition that another does. False when a condition failed (re-read to see why).
   */
  async remove(accountKey: string, credentialId: string, lastFactor: boolean, events: readonly AccountEvent[] = []): Promise<boolean> {
    return this.conditional('removePasskey', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: lastFactor ? 'REMOVE passkeys.#id, recoveryCodes' : 'REMOVE passkeys.#id',
      ConditionExpression: lastFactor
        ? 'attribute_exists(passkeys.#id) AND size(passkeys) = :one AND attribute_not_exists(totpSecret)'
        : 'attribute_exists(passkeys.#id) AND (attribute_exists(totpSecret) OR size(passkeys) > :one)',
      ExpressionAttributeNames: { '#id': credentialId },
      ExpressionAttributeValues: { ':one': { N: '1' } },
    }, events);
  }

  /**
   * A verified assertion's use: the counter moves on only from the value the check read, so of
   * two uses of one assertion (or two racing ones) exactly one writes; false for the other. A
   * right factor ends the counts of wrong ones (CLEAR_FACTOR_FAILURES).
   */
  async recordUse(accountKey: string, credentialId: string, expectedCounter: number, use: PasskeyUse): Promise<boolean> {
    return this.conditional('recordPasskeyUse', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: `SET passkeys.#id.#counter = :counter, passkeys.#id.backedUp = :backedUp, passkeys.#id.lastUsedAt = :now REMOVE ${CLEAR_FACTOR_FAILURES}`,
      ConditionExpression: 'passkeys.#id.#counter = :expected',
      ExpressionAttributeNames: { '#id': credentialId, '#counter': 'counter' },
      ExpressionAttributeValues: {
        ':counter': { N: String(use.counter) },
        ':expected': { N: String(expectedCounter) },
        ':backedUp': { BOOL: use.backedUp },
        ':now': { N: String(use.lastUsedAt) },
      },
    });
  }

  /** The credential's lookup item, unless the credential id is registered already (false then). */
  async putLookup(credentialId: string, lookup: PasskeyLookup): Promise<boolean> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: { pk: { S: lookupKey(credentialId) }, accountUserId: { S: lookup.userId }, accountKey: { S: lookup.accountKey }, email: { S: lookup.email } },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('putPasskeyLookup', error);
    }
  }

  /** Strongly consistent: a credential just registered logs in. */
  async readLookup(credentialId: string): Promise<PasskeyLookup | undefined> {
    const item = await this.get('readPasskeyLookup', lookupKey(credentialId));
    if (item === undefined) return undefined;
    return { userId: textAttribute(item, 'accountUserId', 'passkey'), accountKey: textAttribute(item, 'accountKey', 'passkey'), email: textAttribute(item, 'email', 'passkey') };
  }

  /** The lookup, only if it is this account's (a registration's undo, a removal). */
  async deleteLookup(credentialId: string, accountKey: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: lookupKey(credentialId) } },
          ConditionExpression: 'accountKey = :accountKey',
          ExpressionAttributeValues: { ':accountKey': { S: accountKey } },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) return;
      throw new StorageUnavailableError('deletePasskeyLookup', error);
    }
  }

  /** A new challenge, keyed by its SHA-256. */
  async putChallenge(challengeHash: string, challenge: StoredChallenge): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            pk: { S: challengeKey(challengeHash) },
            purpose: { S: challenge.purpose },
            ...(challenge.userId !== undefined && { accountUserId: { S: challenge.userId } }),
            ...(challenge.accountKey !== undefined && { accountKey: { S: challenge.accountKey } }),
            [TTL_ATTRIBUTE]: { N: String(challenge.expiresAt) },
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('putWebAuthnChallenge', error);
    }
  }

  /**
   * Spends a challenge: deleted if it is there, and what it was returned (one conditional delete,
   * so of two answers to one challenge exactly one gets it). Expired or not: the caller checks.
   */
  async consumeChallenge(challengeHash: string): Promise<StoredChallenge | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Attributes: item } = await this.client.send(
        new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: challengeKey(challengeHash) } }, ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' }),
      ));
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw new StorageUnavailableError('consumeWebAuthnChallenge', error);
    }
    if (item === undefined) return undefined;
    const purpose = item.purpose?.S;
    if (purpose !== 'registration' && purpose !== 'login') throw new StorageRecordInvalidError('webauthn.purpose');
    return {
      purpose,
      ...(item.accountUserId?.S !== undefined && { userId: item.accountUserId.S }),
      ...(item.accountKey?.S !== undefined && { accountKey: item.accountKey.S }),
      expiresAt: wholeNumberAttribute(item, TTL_ATTRIBUTE, 'webauthn'),
    };
  }

  private async get(operation: string, key: string): Promise<Record<string, AttributeValue> | undefined> {
    try {
      return (await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: key } }, ConsistentRead: true }))).Item;
    } catch (error) {
      throw new StorageUnavailableError(operation, error);
    }
  }

  private conditional(operation: string, input: Omit<UpdateItemCommandInput, 'TableName'>, events: readonly AccountEvent[] = []): Promise<boolean> {
    return conditionalUpdateWithEvents(this.outbox, this.tableName, operation, input, events);
  }
}

/** The `passkeys` map of a factors item as read (mfa-store.ts `toStoredMfa`). */
export function toStoredPasskeys(item: Record<string, AttributeValue>): Map<string, StoredPasskey> {
  const passkeys = new Map<string, StoredPasskey>();
  for (const [id, value] of Object.entries(item.passkeys?.M ?? {})) {
    const m = value.M;
    if (m === undefined) throw new StorageRecordInvalidError('mfa.passkeys');
    const publicKey = m.publicKey?.B;
    if (publicKey === undefined) throw new StorageRecordInvalidError('mfa.passkeys.publicKey');
    passkeys.set(id, {
      publicKey,
      counter: wholeNumberAttribute(m, 'counter', 'mfa.passkeys'),
      transports: m.transports?.L?.map((transport) => transport.S ?? '') ?? [],
      backupEligible: m.backupEligible?.BOOL === true,
      backedUp: m.backedUp?.BOOL === true,
      name: textAttribute(m, 'name', 'mfa.passkeys'),
      createdAt: wholeNumberAttribute(m, 'createdAt', 'mfa.passkeys'),
      ...(m.lastUsedAt !== undefined && { lastUsedAt: wholeNumberAttribute(m, 'lastUsedAt', 'mfa.passkeys') }),
      aaguid: m.aaguid?.S ?? '',
    });
  }
  return passkeys;
}

function passkeyAttributes(passkey: StoredPasskey): Record<string, AttributeValue> {
  return {
    publicKey: { B: passkey.publicKey },
    counter: { N: String(passkey.counter) },
    transports: { L: passkey.transports.map((transport) => ({ S: transport })) },
    backupEligible: { BOOL: passkey.backupEligible },
    backedUp: { BOOL: passkey.backedUp },
    name: { S: passkey.name },
    createdAt: { N: String(passkey.createdAt) },
    aaguid: { S: passkey.aaguid },
  };
}

function lookupKey(credentialId: string): string {
  return `${PASSKEY_KEY_PREFIX}${credentialId}`;
}

function challengeKey(challengeHash: string): string {
  return `${WEBAUTHN_CHALLENGE_KEY_PREFIX}${challengeHash}`;
}
