import { DeleteItemCommand, GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { addBelowLimit } from './attempt-counters.js';
import { isConditionalCheckFailed } from './checks.js';
import { StorageUnavailableError } from './errors.js';
import { textAttribute, wholeNumberAttribute } from './item-attributes.js';
import { ONE_TIME_TOKEN_KEY_PREFIX, TTL_ATTRIBUTE } from './table.js';

/**
 * A device approval waiting for its link (packages/server/src/features/device-approval): hashes
 * and numbers only, never a secret or an address.
 */
export interface StoredDeviceApproval {
  /** SHA-256 of the asking client's secret (base64url): the link works only beside it. */
  clientHash: string;
  /**
   * The account the device joins. Absent on the stand-in written for an email without an account
   * (so that asking costs the same): its token was never mailed, and it approves nothing.
   */
  accountUserId?: string;
  /** The account's sessions epoch when it was asked for: a password change since voids it. */
  epoch: number;
  /** Epoch seconds; checked on every read (TTL deletes late). */
  expiresAt: number;
  /** Other clients that presented the link so far. */
  wrongClients: number;
}

/**
 * One item per request, `token#device#<email fingerprint>#<SHA-256 of the mail's secret>`
 * (layout in table.ts): keyed by the link's hash, as MFA tokens are, so a new request leaves the
 * others pending (a stranger asking cannot void the owner's link) and a copy of the table holds
 * no link. Using it deletes it on the condition that it is still there, so of two racing uses
 * exactly one wins. `accountUserId`, not `userId`: the item stays out of the userId index.
 */
export class DeviceApprovalStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async put(accountKey: string, tokenHash: string, approval: Omit<StoredDeviceApproval, 'wrongClients'>): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            pk: { S: deviceApprovalKey(accountKey, tokenHash) },
            clientHash: { S: approval.clientHash },
            ...(approval.accountUserId !== undefined && { accountUserId: { S: approval.accountUserId } }),
            epoch: { N: String(approval.epoch) },
            [TTL_ATTRIBUTE]: { N: String(approval.expiresAt) },
            wrongClients: { N: '0' },
          },
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('putDeviceApproval', error);
    }
  }

  /** The approval the link names, expired or not (the caller decides), strongly consistent. */
  async read(accountKey: string, tokenHash: string): Promise<StoredDeviceApproval | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Item: item } = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: deviceApprovalKey(accountKey, tokenHash) } }, ConsistentRead: true }),
      ));
    } catch (error) {
      throw new StorageUnavailableError('readDeviceApproval', error);
    }
    if (item === undefined) return undefined;
    const number = (name: string) => wholeNumberAttribute(item, name, 'deviceApproval');
    return {
      clientHash: textAttribute(item, 'clientHash', 'deviceApproval'),
      ...(item.accountUserId?.S !== undefined && { accountUserId: item.accountUserId.S }),
      epoch: number('epoch'),
      expiresAt: number(TTL_ATTRIBUTE),
      wrongClients: item.wrongClients ? number('wrongClients') : 0,
    };
  }

  /** Uses the approval: deletes it if it is still there. False when another use got there first. */
  async consume(accountKey: string, tokenHash: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: deviceApprovalKey(accountKey, tokenHash) } },
          ConditionExpression: 'attribute_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw new StorageUnavailableError('consumeDeviceApproval', error);
    }
  }

  /**
   * Reserves one check of a presented client secret against the approval, before it is
   * compared: counted while fewer than `limit` are, so a burst with the link compares no more.
   * The count with this one, or undefined when the approval is used, voided or gone.
   */
  async reserveClientCheck(accountKey: string, tokenHash: string, limit: number): Promise<number | undefined> {
    return addBelowLimit(this.client, this.tableName, 'reserveDeviceApprovalCheck', {
      key: deviceApprovalKey(accountKey, tokenHash),
      attribute: 'wrongClients',
      limit,
      condition: 'attribute_exists(pk)',
    });
  }

}

export function deviceApprovalKey(accountKey: string, tokenHash: string): string {
  return `${ONE_TIME_TOKEN_KEY_PREFIX}device#${accountKey}#${tokenHash}`;
}
