import { DeleteItemCommand, GetItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient, type UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { StorageRecordInvalidError, StorageUnavailableError } from './errors.js';
import { TTL_ATTRIBUTE } from './table.js';

/**
 * Guess counters that are reserved before a secret is checked (packages/server/src/features/login/LIMITS.md,
 * "Count before checking"). Each reservation is one conditional UpdateItem that adds the attempt
 * only while the limit allows it, so however many requests arrive at once, no more than the limit
 * pass: the write is the check. A request whose reservation is refused is answered 429 before any
 * hash, code or signature is looked at. A success gives its reservation back afterwards.
 */

/** A reservation's outcome: the count with this attempt in it, or until when (epoch s) the counter refuses. */
export type Reservation = { count: number } | { refusedUntil: number };

/** An attempt refused by a limit, and until when. */
export function isRefused(reservation: Reservation): reservation is { refusedUntil: number } {
  return 'refusedUntil' in reservation;
}

/** Lost races before a reservation gives up and refuses for a second: only a burst on one counter loses so often. */
const MAX_RACES = 12;

/**
 * A counter with a cap: the attempt is added while fewer than `cap` are counted and the item is
 * live. `expiry: 'sliding'` moves the item's end to `expiresAt` with every attempt (a run of
 * failures remembered past its last one); `'fixed'` keeps the first (a window). An item whose end
 * has passed (TTL deletes late) starts again at 1, on the condition that it is still past.
 */
export async function reserveUnderCap(
  client: DynamoDBClient,
  tableName: string,
  counter: { key: string; attribute: string; cap: number; nowSeconds: number; expiresAt: number; expiry: 'sliding' | 'fixed' },
): Promise<Reservation> {
  const { key, attribute, cap, nowSeconds, expiresAt } = counter;
  const names = { '#c': attribute, '#exp': TTL_ATTRIBUTE };
  const setExpiry = counter.expiry === 'sliding' ? '#exp = :exp' : '#exp = if_not_exists(#exp, :exp)';
  for (let race = 1; race <= MAX_RACES; race++) {
    const added = await conditionalWrite(client, tableName, 'reserveAttempt', {
      Key: { pk: { S: key } },
      UpdateExpression: `ADD #c :one SET ${setExpiry}`,
      ConditionExpression: 'attribute_not_exists(pk) OR (#exp > :now AND #c < :cap)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':one': { N: '1' }, ':exp': { N: String(expiresAt) }, ':now': { N: String(nowSeconds) }, ':cap': { N: String(cap) } },
      ReturnValues: 'UPDATED_NEW',
    });
    if ('written' in added) return { count: countIn(added.written, attribute) };
    const old = added.old;
    if (old !== undefined && countIn(old, TTL_ATTRIBUTE) > nowSeconds) return { refusedUntil: countIn(old, TTL_ATTRIBUTE) };
    // Gone or past its end: start again at 1, unless another attempt restarted it first (then race again).
    const restarted = await conditionalWrite(client, tableName, 'reserveAttempt', {
      Key: { pk: { S: key } },
      UpdateExpression: 'SET #c = :one, #exp = :exp',
      ConditionExpression: 'attribute_not_exists(pk) OR #exp <= :now',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':one': { N: '1' }, ':exp': { N: String(expiresAt) }, ':now': { N: String(nowSeconds) } },
    });
    if ('written' in restarted) return { count: 1 };
  }
  return { refusedUntil: nowSeconds + 1 };
}

/**
 * Gives back attempts a counter holds: `clearAt` the count a success reserved clears the whole
 * run when nobody reserved since (one DeleteItem); otherwise (or without `clearAt`) only this
 * attempt is taken off, never below 0, and the attempts reserved since stay counted.
 */
export async function giveBackUnderCap(client: DynamoDBClient, tableName: string, counter: { key: string; attribute: string; clearAt?: number }): Promise<void> {
  const { key, attribute } = counter;
  if (counter.clearAt !== undefined && (await deleteAtCount(client, tableName, { key, attribute, count: counter.clearAt }))) return;
  await conditionalWrite(client, tableName, 'giveBackAttempt', {
    Key: { pk: { S: key } },
    UpdateExpression: 'ADD #c :minusOne',
    ConditionExpression: '#c > :zero',
    ExpressionAttributeNames: { '#c': attribute },
    ExpressionAttributeValues: { ':minusOne': { N: '-1' }, ':zero': { N: '0' } },
  });
}

/** Deletes a counter's item if it still counts `count` (nothing was reserved since): true when deleted. */
export async function deleteAtCount(client: DynamoDBClient, tableName: string, counter: { key: string; attribute: string; count: number }): Promise<boolean> {
  try {
    await client.send(
      new DeleteItemCommand({
        TableName: tableName,
        Key: { pk: { S: counter.key } },
        ConditionExpression: '#c = :n',
        ExpressionAttributeNames: { '#c': counter.attribute },
        ExpressionAttributeValues: { ':n': { N: String(counter.count) } },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw new StorageUnavailableError('giveBackAttempt', error);
  }
}

/** A counter of failures that, past a free number, makes each next attempt wait (`blockedUntil`, epoch s). */
export interface WaitCount {
  failures: number;
  blockedUntil: number;
}

/** A waiting counter's reservation: the count written and the count and wait before it (to give it back). */
export interface WaitReserved {
  count: number;
  before: WaitCount;
}
export type WaitReservation = WaitReserved | { refusedUntil: number };

/**
 * Where a waiting counter lives in its item: top-level attributes, or a map entry's (a device in
 * the account's sessions item). `read` turns the item as stored into its count (undefined: the
 * counter is gone, and a reservation on it is refused).
 */
export interface WaitCounterPath {
  key: string;
  names: Record<string, string>;
  /** Paths in the UpdateExpression's terms, e.g. `#f` or `#devices.#d.#f`. */
  failures: string;
  blockedUntil: string;
  /** Further SET clauses and their values (the item's expiry). */
  set?: { clauses: readonly string[]; values: Record<string, AttributeValue> };
  /** What must exist for the count to be there (a device's entry); absent: the item may be new. */
  mustExist?: string;
  read(item: Record<string, AttributeValue> | undefined, nowSeconds: number): WaitCount | undefined;
}

/**
 * A counter whose next attempt may have to wait: the attempt is written as the count it
 * believes plus one, with the wait that count earns (`blockedUntilAfter`), on the condition that
 * the count is still what it believed and no wait is running. Exact under any concurrency: of
 * the requests that believed one count, one moves it on; the others read what it wrote and try
 * again, and past the free attempts each further one finds the wait the last one set. Returns
 * the count written and the wait before it, so the attempt can be given back.
 */
export async function reserveWithWait(
  client: DynamoDBClient,
  tableName: string,
  path: WaitCounterPath,
  believed: WaitCount | undefined,
  nowSeconds: number,
  blockedUntilAfter: (failures: number) => number,
): Promise<WaitReservation> {
  let current = believed;
  for (let race = 1; race <= MAX_RACES; race++) {
    if (current === undefined) return { refusedUntil: nowSeconds + 1 };
    if (current.blockedUntil > nowSeconds) return { refusedUntil: current.blockedUntil };
    const count = current.failures + 1;
    const fresh = current.failures === 0 && path.mustExist === undefined;
    const values: Record<string, AttributeValue> = {
      ':old': { N: String(current.failures) },
      ':oldBlocked': { N: String(current.blockedUntil) },
      ':count': { N: String(count) },
      ':blocked': { N: String(blockedUntilAfter(count)) },
      ...path.set?.values,
    };
    const same = `${path.failures} = :old AND ${path.blockedUntil} = :oldBlocked`;
    // Believed empty: the item may be missing or past its end (TTL deletes late) as well.
    const condition = fresh ? `attribute_not_exists(pk) OR #exp <= :now OR (${same})` : `${path.mustExist ?? '#exp > :now'} AND ${same}`;
    if (fresh || path.mustExist === undefined) values[':now'] = { N: String(nowSeconds) };
    const names = { ...path.names, ...(path.mustExist === undefined && { '#exp': TTL_ATTRIBUTE }) };
    const written = await conditionalWrite(client, tableName, 'reserveAttempt', {
      Key: { pk: { S: path.key } },
      UpdateExpression: `SET ${[`${path.failures} = :count`, `${path.blockedUntil} = :blocked`, ...(path.set?.clauses ?? [])].join(', ')}`,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
    if ('written' in written) return { count, before: current };
    current = path.read(written.old, nowSeconds);
  }
  return { refusedUntil: nowSeconds + 1 };
}

/**
 * Gives back an attempt reserved with `reserveWithWait`: the count and wait as they were before
 * it when nothing was reserved since; otherwise the attempts since stay counted with their waits.
 * `clear`: a success, which ends the run (the count and the wait back to 0) when nothing was reserved since.
 */
export async function giveBackWithWait(client: DynamoDBClient, tableName: string, path: WaitCounterPath, reserved: WaitReserved, clear: boolean): Promise<void> {
  const to = clear ? { failures: 0, blockedUntil: 0 } : reserved.before;
  await conditionalWrite(client, tableName, 'giveBackAttempt', {
    Key: { pk: { S: path.key } },
    UpdateExpression: `SET ${path.failures} = :to, ${path.blockedUntil} = :toBlocked`,
    ConditionExpression: `${path.failures} = :count`,
    ExpressionAttributeNames: path.names,
    ExpressionAttributeValues: { ':to': { N: String(to.failures) }, ':toBlocked': { N: String(to.blockedUntil) }, ':count': { N: String(reserved.count) } },
  });
}

/**
 * One conditional UpdateItem: the attributes written, or the item as it was when the condition
 * failed (DynamoDB returns it; servers that do not, dynalite among them, are asked with a
 * consistent read).
 */
async function conditionalWrite(
  client: DynamoDBClient,
  tableName: string,
  operation: string,
  input: Omit<UpdateItemCommandInput, 'TableName' | 'ReturnValuesOnConditionCheckFailure'>,
): Promise<{ written: Record<string, AttributeValue> } | { old: Record<string, AttributeValue> | undefined }> {
  try {
    const { Attributes } = await client.send(new UpdateItemCommand({ TableName: tableName, ...input, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
    return { written: Attributes ?? {} };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw new StorageUnavailableError(operation, error);
    const old = (error as { Item?: Record<string, AttributeValue> }).Item;
    if (old !== undefined) return { old };
    try {
      const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: input.Key, ConsistentRead: true }));
      return { old: Item };
    } catch (readError) {
      throw new StorageUnavailableError(operation, readError);
    }
  }
}

function countIn(item: Record<string, AttributeValue>, name: string): number {
  const value = Number(item[name]?.N ?? '0');
  if (!Number.isSafeInteger(value) || value < 0) throw new StorageRecordInvalidError(`counter.${name}`);
  return value;
}
