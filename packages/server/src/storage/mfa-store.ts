import { DeleteItemCommand, GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient, type UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { addBelowLimit } from './attempt-counters.js';
import { conditionalUpdateWithEvents } from './conditional-update.js';
import type { AccountEvent } from '../events/account-event.js';
import { EventOutbox } from './event-outbox.js';
import { StorageUnavailableError } from './errors.js';
import { countAttribute, textAttribute, wholeNumberAttribute } from './item-attributes.js';
import { toStoredPasskeys, type StoredPasskey } from './passkey-store.js';
import { CLEAR_FACTOR_FAILURES, FACTOR_FAILURE_ATTRIBUTES, MFA_LOGIN_KEY_PREFIX, TTL_ATTRIBUTE, mfaKey, type FactorKind } from './table.js';

/**
 * An account's second factors as stored, `mfa#<email fingerprint>` (layout in table.ts). The
 * TOTP secret is stored sealed (packages/server/src/features/mfa/secret-box.ts), recovery codes as
 * SHA-256 hashes: a copy of the table signs nobody in. Times are epoch seconds.
 */
export interface StoredMfa {
  userId: string;
  /** The active TOTP secret, sealed; absent until a confirm. */
  totpSecret?: string;
  /** The last TOTP time step accepted: a code of this step or an earlier one is a replay. */
  totpLastStep?: number;
  totpEnabledAt?: number;
  /** An enrolment waiting for its confirm: the sealed secret and until when it may be confirmed. */
  pendingSecret?: string;
  pendingExpiresAt?: number;
  /** SHA-256 hashes of the unused recovery codes: the account's factors' as a whole. */
  recoveryCodes: string[];
  /** The passkeys (WebAuthn credentials), by credential id (base64url); empty when none. */
  passkeys: ReadonlyMap<string, StoredPasskey>;
  /** Wrong codes and assertions of each kind of factor since a factor was last right (features/mfa/factor-failures.ts). */
  failures: Readonly<Record<FactorKind, number>>;
}


/** An active factor: TOTP confirmed, or a passkey. Recovery codes alone are none (they back one up). */
export function hasActiveFactor(factors: StoredMfa | undefined): boolean {
  return factors !== undefined && (factors.totpSecret !== undefined || factors.passkeys.size > 0);
}

/** A password step passed on an account with a second factor: what POST /login/mfa finishes. */
export interface StoredMfaLogin {
  userId: string;
  /** The account's canonical email (the account item's key) and its fingerprint. */
  email: string;
  accountKey: string;
  /** SHA-256 of the password hash verified: a password change since voids the token. */
  passwordMark: string;
  /** Epoch seconds; checked on every read (TTL deletes late). */
  expiresAt: number;
  wrongCodes: number;
  /** The challenge of the passkey assertion it offered (base64url), when the account has passkeys. */
  webauthnChallenge?: string;
}

/**
 * Second factors and MFA login tokens. Every change that must not be lost to a race is one
 * conditional write: a confirm only of the secret that was shown, a TOTP step only forward (a
 * code is accepted once), a recovery code deleted only while it is there (used once), a login
 * token spent only once. The items name the account's user `accountUserId`, never `userId`:
 * that attribute puts an item in the userId index, which must find accounts only. The writes
 * that add or remove a factor take the account events to record with them (event-outbox.ts).
 */
export class MfaStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly outbox = new EventOutbox(client, tableName),
  ) {}

  /** The account's factors, strongly consistent; undefined when it never enrolled. */
  async read(accountKey: string): Promise<StoredMfa | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: item } = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: mfaKey(accountKey) } }, ConsistentRead: true })));
    } catch (error) {
      throw new StorageUnavailableError('readMfa', error);
    }
    return item === undefined ? undefined : toStoredMfa(item);
  }

  /** A new enrolment, replacing any earlier one not confirmed; never while TOTP is active (false then). */
  async putPending(accountKey: string, userId: string, sealed: string, expiresAt: number): Promise<boolean> {
    return this.conditional('putPendingTotp', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: 'SET accountUserId = :userId, pendingSecret = :sealed, pendingExpiresAt = :expiresAt',
      ConditionExpression: 'attribute_not_exists(totpSecret)',
      ExpressionAttributeValues: { ':userId': { S: userId }, ':sealed': { S: sealed }, ':expiresAt': { N: String(expiresAt) } },
    });
  }

  /**
   * The pending secret becomes the active one, with the step of the code that confirmed it and,
   * when given, the recovery codes' hashes (the account's first factor: only while it has no
   * passkey); only if it is still the secret the confirm checked.
   */
  async activate(accountKey: string, pendingSealed: string, step: number, now: number, recoveryCodes?: readonly string[], events: readonly AccountEvent[] = []): Promise<boolean> {
    const values: Record<string, AttributeValue> = { ':pending': { S: pendingSealed }, ':step': { N: String(step) }, ':now': { N: String(now) } };
    let set = 'totpSecret = :pending, totpLastStep = :step, totpEnabledAt = :now';
    let condition = 'pendingSecret = :pending AND attribute_not_exists(totpSecret)';
    if (recoveryCodes !== undefined) {
      set += ', recoveryCodes = :codes';
      values[':codes'] = { SS: [...recoveryCodes] };
      values[':zero'] = { N: '0' };
      condition += ` AND ${NO_PASSKEY}`;
    }
    return this.conditional('activateTotp', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: `SET ${set} REMOVE pendingSecret, pendingExpiresAt`,
      ConditionExpression: condition,
      ExpressionAttributeValues: values,
    }, events);
  }

  /** Accepts a TOTP step: only later than the last accepted one, and only for this secret (false: a replay, or the factor changed). */
  async useTotpStep(accountKey: string, sealed: string, step: number): Promise<boolean> {
    return this.conditional('useTotpStep', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: `SET totpLastStep = :step REMOVE ${CLEAR_FACTOR_FAILURES}`,
      ConditionExpression: 'totpSecret = :sealed AND totpLastStep < :step',
      ExpressionAttributeValues: { ':sealed': { S: sealed }, ':step': { N: String(step) } },
    });
  }

  /** Spends a recovery code: deleted from the set only while it is in it (false: used, or never one). */
  async useRecoveryCode(accountKey: string, hash: string): Promise<boolean> {
    return this.conditional('useRecoveryCode', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: `DELETE recoveryCodes :code REMOVE ${CLEAR_FACTOR_FAILURES}`,
      ConditionExpression: 'contains(recoveryCodes, :hash)',
      ExpressionAttributeValues: { ':code': { SS: [hash] }, ':hash': { S: hash } },
    });
  }

  /** New recovery codes in place of every old one, while a factor (TOTP or a passkey) is active (false otherwise). */
  async replaceRecoveryCodes(accountKey: string, hashes: readonly string[]): Promise<boolean> {
    return this.conditional('replaceRecoveryCodes', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: 'SET recoveryCodes = :codes',
      ConditionExpression: `attribute_exists(totpSecret) OR (${HAS_PASSKEY})`,
      ExpressionAttributeValues: { ':codes': { SS: [...hashes] }, ':zero': { N: '0' } },
    });
  }

  /**
   * Removes TOTP, only if the secret is still the one the caller's second factor was checked
   * against. `lastFactor`: no passkey is left, and the recovery codes go too, on that condition;
   * otherwise they stay, on the condition that a passkey does. False when a condition failed.
   * The item stays for the factors still to come.
   */
  async removeTotp(accountKey: string, sealed: string, lastFactor = true, events: readonly AccountEvent[] = []): Promise<boolean> {
    return this.conditional('removeTotp', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: `REMOVE totpSecret, totpLastStep, totpEnabledAt, pendingSecret, pendingExpiresAt${lastFactor ? ', recoveryCodes' : ''}`,
      ConditionExpression: `totpSecret = :sealed AND ${lastFactor ? NO_PASSKEY : `(${HAS_PASSKEY})`}`,
      ExpressionAttributeValues: { ':sealed': { S: sealed }, ':zero': { N: '0' } },
    }, events);
  }

  /** A new MFA login token, keyed by the SHA-256 of its secret. */
  async putLogin(tokenHash: string, login: Omit<StoredMfaLogin, 'wrongCodes'>): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            pk: { S: mfaLoginKey(tokenHash) },
            accountUserId: { S: login.userId },
            email: { S: login.email },
            accountKey: { S: login.accountKey },
            passwordMark: { S: login.passwordMark },
            [TTL_ATTRIBUTE]: { N: String(login.expiresAt) },
            wrongCodes: { N: '0' },
            ...(login.webauthnChallenge !== undefined && { webauthnChallenge: { S: login.webauthnChallenge } }),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('putMfaLogin', error);
    }
  }

  /** The MFA login token, expired or not (the caller decides), strongly consistent. */
  async readLogin(tokenHash: string): Promise<StoredMfaLogin | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: item } = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: mfaLoginKey(tokenHash) } }, ConsistentRead: true })));
    } catch (error) {
      throw new StorageUnavailableError('readMfaLogin', error);
    }
    if (item === undefined) return undefined;
    const text = (name: string) => textAttribute(item, name, 'mfaLogin');
    return {
      userId: text('accountUserId'),
      email: text('email'),
      accountKey: text('accountKey'),
      passwordMark: text('passwordMark'),
      expiresAt: wholeNumberAttribute(item, TTL_ATTRIBUTE, 'mfa'),
      wrongCodes: item.wrongCodes === undefined ? 0 : wholeNumberAttribute(item, 'wrongCodes', 'mfa'),
      ...(item.webauthnChallenge?.S !== undefined && { webauthnChallenge: item.webauthnChallenge.S }),
    };
  }

  /**
   * Reserves one code against the MFA token before it is checked: counted while fewer than
   * `limit` are (a burst on one token checks no more). The count with this one, or undefined
   * when the token is spent, gone or used up.
   */
  async reserveTokenAttempt(tokenHash: string, limit: number): Promise<number | undefined> {
    return this.reserve('reserveMfaTokenAttempt', mfaLoginKey(tokenHash), 'wrongCodes', limit);
  }

  /**
   * Reserves one attempt of a kind of factor before it is checked: counted while fewer than
   * `limit` are, over the factor's life (until a factor is right: CLEAR_FACTOR_FAILURES). The
   * count with this one, or undefined when the kind is suspended (or the account has no factors).
   */
  async reserveFactorAttempt(accountKey: string, kind: FactorKind, limit: number): Promise<number | undefined> {
    return this.reserve('reserveFactorAttempt', mfaKey(accountKey), FACTOR_FAILURE_ATTRIBUTES[kind], limit);
  }

  /** The owner proved control another way (their mailbox): every kind's count ends. */
  async clearFactorFailures(accountKey: string): Promise<void> {
    await this.conditional('clearFactorFailures', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: `REMOVE ${CLEAR_FACTOR_FAILURES}`,
      ConditionExpression: 'attribute_exists(pk)',
    });
  }

  /** Spends the token: deleted if it is still there. False when another use (or the wrong-code limit) got there first. */
  async consumeLogin(tokenHash: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: mfaLoginKey(tokenHash) } }, ConditionExpression: 'attribute_exists(pk)' }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('consumeMfaLogin', error);
    }
  }

  /** One more on a count of an item that exists, while below `limit`: the new count, or undefined. */
  private reserve(operation: string, key: string, attribute: string, limit: number): Promise<number | undefined> {
    return addBelowLimit(this.client, this.tableName, operation, { key, attribute, limit, condition: 'attribute_exists(pk)' });
  }

  private conditional(operation: string, input: Omit<UpdateItemCommandInput, 'TableName'>, events: readonly AccountEvent[] = []): Promise<boolean> {
    return conditionalUpdateWithEvents(this.outbox, this.tableName, operation, input, events);
  }

  /** Removes the recovery codes, while there are some (false otherwise): an operator's removal (features/account). */
  async removeRecoveryCodes(accountKey: string): Promise<boolean> {
    return this.conditional('removeRecoveryCodes', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: 'REMOVE recoveryCodes',
      ConditionExpression: 'attribute_exists(recoveryCodes)',
    });
  }

  /**
   * Deletes the account's factors item whole (every factor, the recovery codes, the failure
   * counts), only while it is this account's: an operator's removal of every factor, a deletion.
   */
  async deleteFactors(accountKey: string, userId: string, events: readonly AccountEvent[] = []): Promise<void> {
    try {
      await this.outbox.write(
        {
          Delete: {
            TableName: this.tableName,
            Key: { pk: { S: mfaKey(accountKey) } },
            ConditionExpression: 'accountUserId = :userId',
            ExpressionAttributeValues: { ':userId': { S: userId } },
          },
        },
        events,
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) return;
      throw new StorageUnavailableError('deleteFactors', error);
    }
  }

  /**
   * putPending for a caller whose login used no factor: only while the account has none (no
   * TOTP, no passkey), in the same write, so a factor enrolled concurrently is not bypassed by a
   * read that came before it (false then).
   */
  async putFirstPending(accountKey: string, userId: string, sealed: string, expiresAt: number): Promise<boolean> {
    return this.conditional('putFirstPendingTotp', {
      Key: { pk: { S: mfaKey(accountKey) } },
      UpdateExpression: 'SET accountUserId = :userId, pendingSecret = :sealed, pendingExpiresAt = :expiresAt',
      ConditionExpression: `attribute_not_exists(totpSecret) AND ${NO_PASSKEY}`,
      ExpressionAttributeValues: { ':userId': { S: userId }, ':sealed': { S: sealed }, ':expiresAt': { N: String(expiresAt) }, ':zero': { N: '0' } },
    });
  }
}

/** A factors item as read (here, or with a login's other items: login-guard-store.ts). */
export function toStoredMfa(item: Record<string, AttributeValue>): StoredMfa {
  return {
    userId: textAttribute(item, 'accountUserId', 'mfa'),
    ...(item.totpSecret?.S !== undefined && { totpSecret: item.totpSecret.S }),
    ...(item.totpLastStep !== undefined && { totpLastStep: wholeNumberAttribute(item, 'totpLastStep', 'mfa') }),
    ...(item.totpEnabledAt !== undefined && { totpEnabledAt: wholeNumberAttribute(item, 'totpEnabledAt', 'mfa') }),
    ...(item.pendingSecret?.S !== undefined && { pendingSecret: item.pendingSecret.S }),
    ...(item.pendingExpiresAt !== undefined && { pendingExpiresAt: wholeNumberAttribute(item, 'pendingExpiresAt', 'mfa') }),
    recoveryCodes: item.recoveryCodes?.SS ?? [],
    passkeys: toStoredPasskeys(item),
    failures: {
      totp: countAttribute(item, FACTOR_FAILURE_ATTRIBUTES.totp, 'mfa'),
      recovery_code: countAttribute(item, FACTOR_FAILURE_ATTRIBUTES.recovery_code, 'mfa'),
      webauthn: countAttribute(item, FACTOR_FAILURE_ATTRIBUTES.webauthn, 'mfa'),
    },
  };
}


/** No passkey in the item (the map absent, or emptied by removals); `:zero` is 0. (DynamoDB refuses redundant parentheses.) */
const NO_PASSKEY = '(attribute_not_exists(passkeys) OR size(passkeys) = :zero)';
/** A passkey in the item. */
const HAS_PASSKEY = 'attribute_exists(passkeys) AND size(passkeys) > :zero';

export function mfaLoginKey(tokenHash: string): string {
  return `${MFA_LOGIN_KEY_PREFIX}${tokenHash}`;
}

