/**
 * Records every AWS call a function makes, as IAM authorizes it: one entry per action and
 * resource, with the partition keys it touches (`dynamodb:LeadingKeys`). An SDK v3 middleware
 * (initialize step: the command's input, once per call however often the SDK retries).
 *
 * `recordAllAwsClients` attaches it to every DynamoDBClient, SSMClient, SESv2Client and LambdaClient (a hook's Invoke) the moment
 * one first sends, so a function's clients are recorded however its wiring builds them (the
 * cached API client, the rehash job's bulk client, the SSM and SES clients in their lazily loaded
 * chunks) without a hook in production code. Only the keys and names IAM sees are kept: never
 * item attributes (hashes) or mail contents, and keys are printed only as their kind
 * (`keyKind`: `user#…`).
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SSMClient } from '@aws-sdk/client-ssm';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { vi } from 'vitest';
import { ACCOUNT_ID, PARTITION, REGION } from './template-roles.js';

/** What one IAM authorization is about. A call may need several (batches, transactions). */
export interface AwsRequest {
  /** e.g. "dynamodb:PutItem", "ssm:GetParameter". */
  action: string;
  resource:
    | { type: 'table'; table: string; index?: string }
    | { type: 'parameter'; name: string }
    /** An SES resource: `name` is what the function was configured with (the identity's ARN, the configuration set's name). */
    | { type: 'ses'; kind: 'identity' | 'configuration-set'; arn: string; name: string }
    /** Any other resource by its ARN (an EventBridge bus, a stream, a queue); `name`: what the function was configured with, if anything. */
    | { type: 'arn'; arn: string; name?: string }
    /** A Lambda function as Invoke names it: a name, `account:function:name` or an ARN, each with an optional qualifier. */
    | { type: 'function'; name: string }
    | { type: 'unknown'; detail: string };
  /** Partition-key values touched, when the action has them (dynamodb:LeadingKeys). Raw: print only keyKind(). */
  leadingKeys?: string[];
  /** For items of TransactWriteItems / TransactGetItems (dynamodb:EnclosingOperation). */
  enclosingOperation?: string;
  /** The SDK command, for messages. */
  operation: string;
}

/** The table's partition key and each index's, by attribute name (from the template). */
export interface KeySchema {
  partitionKey: string;
  indexPartitionKeys: Record<string, string>;
}

export interface CallSink {
  record(request: AwsRequest): void;
  /** Awaited before the call goes out: lets a test make a concurrent write land first. */
  beforeSend?(requests: AwsRequest[]): Promise<void>;
}

const MIDDLEWARE_NAME = 'passlaneIamCallRecorder';
const SERVICE_OF_CLIENT: Record<string, string> = { DynamoDBClient: 'dynamodb', SSMClient: 'ssm', SESv2Client: 'ses', EventBridgeClient: 'events', LambdaClient: 'lambda' };
type RecordedClient = DynamoDBClient | SSMClient | SESv2Client | EventBridgeClient | LambdaClient;

type Next = (args: { input: object }) => Promise<unknown>;
type Context = { clientName?: string; commandName?: string };

/** Adds the recording middleware to one client, through the SDK's own middleware stack. */
export function attachRecorder(client: RecordedClient, schema: KeySchema, sink: () => CallSink | undefined): void {
  const middleware = (next: Next, context: Context) => async (args: { input: object }) => {
    const target = sink();
    if (target !== undefined) {
      const service = SERVICE_OF_CLIENT[context.clientName ?? ''] ?? `unknown(${context.clientName})`;
      const operation = (context.commandName ?? 'UnknownCommand').replace(/Command$/, '');
      const requests = requestsOf(service, operation, args.input as Record<string, unknown>, schema);
      for (const request of requests) target.record(request);
      await target.beforeSend?.(requests);
    }
    return next(args);
  };
  // The stack's types are per client; the middleware only reads `input` and the context names.
  (client.middlewareStack as DynamoDBClient['middlewareStack']).add(middleware as never, { step: 'initialize', name: MIDDLEWARE_NAME, priority: 'high' });
}

/**
 * Records the calls of every DynamoDB, SSM and SES v2 client in this process into
 * `currentSink()` (none while it returns undefined), except the clients in `untracked` (the
 * test's own, for seeding): a vitest spy on `send` finds each client when it first sends and
 * attaches the middleware to it. Undone by vi.restoreAllMocks().
 */
export function recordAllAwsClients(schema: KeySchema, currentSink: () => CallSink | undefined, untracked: WeakSet<object>): void {
  const instrumented = new WeakSet<object>();
  for (const Client of [DynamoDBClient, SSMClient, SESv2Client, EventBridgeClient, LambdaClient]) {
    const original = Client.prototype.send as (...args: unknown[]) => unknown;
    vi.spyOn(Client.prototype as { send: (...args: unknown[]) => unknown }, 'send').mockImplementation(function (this: RecordedClient, ...args: unknown[]) {
      if (!untracked.has(this) && !instrumented.has(this)) {
        instrumented.add(this);
        attachRecorder(this, schema, currentSink);
      }
      return original.apply(this, args);
    } as never);
  }
}

type Input = Record<string, unknown>;
type Item = Record<string, AttributeValue>;

/** The IAM authorizations one SDK call needs (DynamoDB: per table, per transaction item). */
export function requestsOf(service: string, operation: string, input: Input, schema: KeySchema): AwsRequest[] {
  const action = `${service}:${operation}`;
  if (service === 'ssm') {
    const name = typeof input.Name === 'string' ? input.Name : undefined;
    return [{ action, operation, resource: name === undefined ? { type: 'unknown', detail: 'no Name' } : { type: 'parameter', name } }];
  }
  if (service === 'ses') return sesRequests(action, operation, input);
  if (service === 'events') return eventBusRequests(action, operation, input);
  if (service === 'lambda') {
    // Invoke is authorized as lambda:InvokeFunction on the function it names.
    const name = typeof input.FunctionName === 'string' ? input.FunctionName : undefined;
    if (operation !== 'Invoke' || name === undefined) return [{ action, operation, resource: { type: 'unknown', detail: `Lambda ${operation}` } }];
    return [{ action: 'lambda:InvokeFunction', operation, resource: { type: 'function', name } }];
  }
  if (service !== 'dynamodb') return [{ action, operation, resource: { type: 'unknown', detail: `client of ${service}` } }];

  const key = (item: unknown, attribute = schema.partitionKey): string => {
    const value = (item as Item | undefined)?.[attribute];
    return value?.S ?? value?.N ?? (value?.B === undefined ? '<no partition key>' : Buffer.from(value.B).toString('base64'));
  };
  const table = (name: unknown, index?: unknown): AwsRequest['resource'] =>
    typeof name === 'string'
      ? { type: 'table', table: name, ...(typeof index === 'string' && { index }) }
      : { type: 'unknown', detail: 'no TableName' };

  switch (operation) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ action, operation, resource: table(input.TableName), leadingKeys: [key(input.Key)] }];
    case 'PutItem':
      return [{ action, operation, resource: table(input.TableName), leadingKeys: [key(input.Item)] }];
    case 'Query': {
      const index = typeof input.IndexName === 'string' ? input.IndexName : undefined;
      const attribute = index === undefined ? schema.partitionKey : schema.indexPartitionKeys[index];
      return [{ action, operation, resource: table(input.TableName, index), leadingKeys: [queryPartitionValue(input, attribute)] }];
    }
    case 'Scan':
      return [{ action, operation, resource: table(input.TableName, input.IndexName) }];
    case 'BatchGetItem':
      // One authorization per table, with every key of that table.
      return Object.entries((input.RequestItems ?? {}) as Record<string, { Keys?: Item[] }>).map(([name, request]) => ({
        action,
        operation,
        resource: table(name),
        leadingKeys: (request.Keys ?? []).map((k) => key(k)),
      }));
    case 'BatchWriteItem':
      return Object.entries((input.RequestItems ?? {}) as Record<string, Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }>>).map(
        ([name, writes]) => ({
          action,
          operation,
          resource: table(name),
          leadingKeys: writes.map((write) => key(write.PutRequest?.Item ?? write.DeleteRequest?.Key)),
        }),
      );
    case 'TransactWriteItems':
    case 'TransactGetItems': {
      // Each item is authorized as its own action (Put -> PutItem, Get -> GetItem, ...).
      const ACTIONS: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };
      return ((input.TransactItems ?? []) as Array<Record<string, { TableName?: string; Key?: Item; Item?: Item }>>).flatMap((entry) =>
        Object.entries(entry).map(([kind, item]) => ({
          action: `dynamodb:${ACTIONS[kind] ?? `Unknown${kind}`}`,
          operation,
          resource: table(item.TableName),
          leadingKeys: [key(item.Key ?? item.Item)],
          enclosingOperation: operation,
        })),
      );
    }
    default:
      // Table-level calls (DescribeTable, ...) carry a TableName; anything else is unknown and
      // fails the check rather than passing unexamined.
      return [{ action, operation, resource: table(input.TableName) }];
  }
}

/**
 * SES v2 SendEmail, as SES authorizes it: the identity sent as and, when the mail names one, the
 * configuration set (in the identity's region and the caller's account; the caller here is always
 * the template's account). Only FromEmailAddressIdentityArn names the identity unambiguously:
 * without it SES picks the address's or the domain's identity itself, which this check cannot
 * know, so such a call is unknown and fails rather than passing unexamined.
 */
function sesRequests(action: string, operation: string, input: Input): AwsRequest[] {
  if (operation !== 'SendEmail') return [{ action, operation, resource: { type: 'unknown', detail: `SES ${operation}` } }];
  const identityArn = typeof input.FromEmailAddressIdentityArn === 'string' ? input.FromEmailAddressIdentityArn : undefined;
  const parts = /^arn:([^:]+):ses:([^:]+):\d{12}:identity\/.+$/.exec(identityArn ?? '');
  if (identityArn === undefined || parts === null) {
    return [{ action, operation, resource: { type: 'unknown', detail: 'SendEmail without a FromEmailAddressIdentityArn' } }];
  }
  const requests: AwsRequest[] = [{ action, operation, resource: { type: 'ses', kind: 'identity', arn: identityArn, name: identityArn } }];
  const configurationSet = input.ConfigurationSetName;
  if (typeof configurationSet === 'string') {
    const [, partition, region] = parts;
    const arn = `arn:${partition}:ses:${region}:${ACCOUNT_ID}:configuration-set/${configurationSet}`;
    requests.push({ action, operation, resource: { type: 'ses', kind: 'configuration-set', arn, name: configurationSet } });
  }
  return requests;
}

/**
 * EventBridge PutEvents, as it is authorized: once per bus its entries name (a name is a bus of
 * the caller's region and account, an ARN is itself; no name is the default bus).
 */
function eventBusRequests(action: string, operation: string, input: Input): AwsRequest[] {
  if (operation !== 'PutEvents') return [{ action, operation, resource: { type: 'unknown', detail: `EventBridge ${operation}` } }];
  const buses = new Set(((input.Entries ?? []) as Array<{ EventBusName?: string }>).map((entry) => entry.EventBusName ?? 'default'));
  return [...buses].map((bus) => ({
    action,
    operation,
    resource: { type: 'arn', arn: bus.startsWith('arn:') ? bus : `arn:${PARTITION}:events:${REGION}:${ACCOUNT_ID}:event-bus/${bus}`, name: bus },
  }));
}

/** The partition-key value of `<attribute> = :value` in a KeyConditionExpression. */
function queryPartitionValue(input: Input, attribute: string | undefined): string {
  const expression = typeof input.KeyConditionExpression === 'string' ? input.KeyConditionExpression : '';
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Item;
  for (const match of expression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const name = match[1]!.startsWith('#') ? names[match[1]!] : match[1];
    if (name === attribute) return values[match[2]!]?.S ?? '<not a string>';
  }
  return '<no partition key condition>';
}

/**
 * A key as it may be printed: the leading all-letter segments (the item kind: `user#`,
 * `ratelimit#login#ip#`, `job#rehash`) kept, the rest (emails, addresses, fingerprints, which
 * have digits or punctuation) replaced by a short digest, so one account's keys still match.
 */
export function redactKey(key: string): string {
  const segments = key.split('#');
  const kept: string[] = [];
  for (const segment of segments) {
    // Kind words are short; fingerprints (16 hex digits) and the like never pass.
    if (!/^[a-z]+(-[a-z]+)*$/.test(segment) || segment.length > 12) break;
    kept.push(segment);
  }
  if (kept.length === segments.length) return key;
  const rest = segments.slice(kept.length).join('#');
  const digest = createHash('sha256').update(rest).digest('hex').slice(0, 8);
  return `${kept.map((segment) => `${segment}#`).join('')}<${digest}>`;
}

/** What kind of item a key is, as printed: `user#…`, `failures#acct#…`, `job#rehash`. */
export function keyKind(key: string): string {
  return redactKey(key).replace(/<[0-9a-f]{8}>$/, '…');
}

/** The kind of item a key is: its first segment with the `#`, or the whole key if none. */
export function keyPrefix(key: string): string {
  const hash = key.indexOf('#');
  return hash < 0 ? key : key.slice(0, hash + 1);
}
