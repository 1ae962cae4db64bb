import { DeleteItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { StorageUnavailableError } from './errors.js';
import { textAttribute, wholeNumberAttribute } from './item-attributes.js';
import { FEDERATION_FLOW_KEY_PREFIX, TTL_ATTRIBUTE } from './table.js';

/**
 * The short-lived steps of a sign-in with a provider: an authorization request waiting for its
 * callback (`state`), a code the app redeems (`code`), an identity waiting to be linked (`link`).
 */
export type FederationFlowKind = 'state' | 'code' | 'link';

export interface FederationFlowItem {
  /** What the feature keeps of the step, as it wrote it (JSON): opaque to the store, like a password hash. */
  payload: string;
  /** Epoch seconds; the reader checks it (TTL deletes late). */
  expiresAt: number;
}

/**
 * `oauth#<kind>#<hash of the step's secret>` (layout in table.ts): written once, never updated,
 * and spent by one conditional delete that hands back what it held, so of two uses of one
 * secret exactly one gets it. The secret itself is never stored.
 */
export class FederationFlowStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async put(kind: FederationFlowKind, secretHash: string, item: FederationFlowItem): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: { pk: { S: flowKey(kind, secretHash) }, payload: { S: item.payload }, [TTL_ATTRIBUTE]: { N: String(item.expiresAt) } },
          // A hash of fresh random bytes is never taken; the condition keeps a collision from replacing a step.
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      throw new StorageUnavailableError('putFederationFlow', error);
    }
  }

  /** Deletes the step and returns what it held; undefined when it is unknown or was spent already (expired or not: the caller checks). */
  async spend(kind: FederationFlowKind, secretHash: string): Promise<FederationFlowItem | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      ({ Attributes: item } = await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: flowKey(kind, secretHash) } },
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_OLD',
        }),
      ));
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw new StorageUnavailableError('spendFederationFlow', error);
    }
    if (item === undefined) return undefined;
    return { payload: textAttribute(item, 'payload', 'federationFlow'), expiresAt: wholeNumberAttribute(item, TTL_ATTRIBUTE, 'federationFlow') };
  }
}

function flowKey(kind: FederationFlowKind, secretHash: string): string {
  return `${FEDERATION_FLOW_KEY_PREFIX}${kind}#${secretHash}`;
}
