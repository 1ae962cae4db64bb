import { DeleteItemCommand, GetItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient, type UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { StorageUnavailableError } from './errors.js';
import { countAttribute } from './item-attributes.js';
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
export function isRefused(reservation: Reservation | WaitReservation): reservation is { refusedUntil: number } {
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
      // A window item may hold only good logins (`successes`): no count yet is a count of 0.
      ConditionExpression: 'attribute_not_exists(pk) OR (#exp > :now AND (attribute_not_exists(#c) OR #c < :cap))',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':one': { N: '1' }, ':exp': { N: String(expiresAt) }, ':now': { N: String(nowSeconds) }, ':cap': { N: String(cap) } },
      ReturnValues: 'UPDATED_NEW',
    }, true);
    if ('written' in added) return { count: countAttribute(added.written, attribute, 'counter') };
    const old = added.old;
    if (old !== undefined && countAttribute(old, TTL_ATTRIBUTE, 'counter') > nowSeconds) return { refusedUntil: countAttribute(old, TTL_ATTRIBUTE, 'counter') };
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

/**
 * One attempt more on a count kept in an item of its own kind (an MFA token's codes, a factor's
 * wrong attempts, a one-time token's guesses, a device approval's clients), while it is below
 * `limit` and `condition` holds (the item is still the one checked): the count with this
 * attempt, or undefined when refused (used up, gone, or replaced).
 */
export async function addBelowLimit(
  client: DynamoDBClient,
  tableName: string,
  operation: string,
  counter: { key: string; attribute: string; limit: number; condition: string; values?: Record<string, AttributeValue> },
): Promise<number | undefined> {
  const added = await conditionalWrite(client, tableName, operation, {
    Key: { pk: { S: counter.key } },
    UpdateExpression: 'ADD #count :one',
    ConditionExpression: `${counter.condition} AND (attribute_not_exists(#count) OR #count < :limit)`,
    ExpressionAttributeNames: { '#count': counter.attribute },
    ExpressionAttributeValues: { ':one': { N: '1' }, ':limit': { N: String(counter.limit) }, ...counter.values },
    ReturnValues: 'UPDATED_NEW',
  });
  return 'written' in added ? countAttribute(added.written, counter.attribute, 'counter') : undefined;
}

/** A counter of failures that, past its free ones, makes each next attempt wait (`blockedUntil`, epoch s). */
export interface WaitCount {
  failures: number;
  blockedUntil: number;
}

/** A waiting counter's reservation: the count with this attempt in it and the count and wait before it (to give it back). */
export interface WaitReserved {
  count: number;
  before: WaitCount;
}
/** A waiting counter's reservation, or until when it refuses. */
export type WaitReservation = WaitReserved | { refusedUntil: number };

/**
 * Where a waiting counter lives in its item: top-level attributes with the item's expiry, or a
 * map entry's (a device in the account's sessions item: `mustExist`). `read` turns the item as
 * stored into its count (undefined: the counter is gone, and a reservation on it is refused).
 */
export interface WaitCounterPath {
  key: string;
  names: Record<string, string>;
  /** Paths in the UpdateExpression's terms, e.g. `#f` or `#devices.#d.#f`. */
  failures: string;
  blockedUntil: string;
  /** The item's end, moved on by every attempt (top-level counters only). */
  expiresAt?: number;
  /** What must exist for the count to be there (a device's entry); absent: the item may be new. */
  mustExist?: string;
  read(item: Record<string, AttributeValue> | undefined, nowSeconds: number): WaitCount | undefined;
}

/**
 * A counter whose attempts past `free` each wait (`blockedUntilAfter` the count). The free ones
 * are added under a cap, so any number of requests may race for them and exactly `free` win.
 * Past them, an attempt is written as the count it read plus one with the wait that count earns,
 * on the condition that the count is still what it read and no wait is running: of the requests
 * that read one count, one writes it, and the others find its wait when they read again. Exact
 * under any concurrency; a request that keeps losing races is refused for a second.
 */
export async function reserveWithWait(
  client: DynamoDBClient,
  tableName: string,
  path: WaitCounterPath,
  believed: WaitCount | undefined,
  limits: { nowSeconds: number; free: number; blockedUntilAfter: (failures: number) => number },
): Promise<WaitReservation> {
  const { nowSeconds, free } = limits;
  const names = { ...path.names, ...(path.expiresAt !== undefined && { '#exp': TTL_ATTRIBUTE }) };
  const live = path.mustExist ?? 'attribute_not_exists(pk) OR #exp > :now';
  // Shared by the writes below (conditionalWrite sends each only the ones it uses).
  const common: Record<string, AttributeValue> = { ':now': { N: String(nowSeconds) }, ...(path.expiresAt !== undefined && { ':exp': { N: String(path.expiresAt) } }) };
  const setExpiry = path.expiresAt === undefined ? '' : ', #exp = :exp';
  let current = believed;
  for (let race = 1; race <= MAX_RACES; race++) {
    if (current === undefined) return { refusedUntil: nowSeconds + 1 };
    if (current.blockedUntil > nowSeconds) return { refusedUntil: current.blockedUntil };
    const result =
      current.failures < free
        ? await conditionalWrite(client, tableName, 'reserveAttempt', {
            Key: { pk: { S: path.key } },
            UpdateExpression: `SET ${path.failures} = if_not_exists(${path.failures}, :zero) + :one, ${path.blockedUntil} = if_not_exists(${path.blockedUntil}, :zero)${setExpiry}`,
            ConditionExpression: `(${live}) AND (attribute_not_exists(${path.failures}) OR ${path.failures} < :free)`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':zero': { N: '0' }, ':one': { N: '1' }, ':free': { N: String(free) }, ...common },
            ReturnValues: 'ALL_NEW',
          }, path.mustExist === undefined)
        : await conditionalWrite(client, tableName, 'reserveAttempt', {
            Key: { pk: { S: path.key } },
            UpdateExpression: `SET ${path.failures} = :count, ${path.blockedUntil} = :blocked${setExpiry}`,
            ConditionExpression: `(${path.mustExist ?? '#exp > :now'}) AND ${path.failures} = :old AND ${path.blockedUntil} = :oldBlocked`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ':old': { N: String(current.failures) },
              ':oldBlocked': { N: String(current.blockedUntil) },
              ':count': { N: String(current.failures + 1) },
              ':blocked': { N: String(limits.blockedUntilAfter(current.failures + 1)) },
              ...common,
            },
            ReturnValues: 'ALL_NEW',
          });
    if ('written' in result) {
      const count = path.read(result.written, nowSeconds)?.failures ?? 0;
      // Under the cap the count may have moved since the read; what stood before this attempt is one less, with no wait running.
      return { count, before: current.failures < free ? { failures: count - 1, blockedUntil: current.blockedUntil } : current };
    }
    const old = result.old;
    // A top-level counter past its end (TTL deletes late): it starts again, unless another attempt restarted it first.
    if (path.mustExist === undefined && old !== undefined && Number(old[TTL_ATTRIBUTE]?.N ?? '0') <= nowSeconds) {
      const restarted = await conditionalWrite(client, tableName, 'reserveAttempt', {
        Key: { pk: { S: path.key } },
        UpdateExpression: `SET ${path.failures} = :one, ${path.blockedUntil} = :blocked${setExpiry}`,
        ConditionExpression: 'attribute_not_exists(pk) OR #exp <= :now',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':one': { N: '1' }, ':blocked': { N: String(limits.blockedUntilAfter(1)) }, ...common },
      });
      if ('written' in restarted) return { count: 1, before: { failures: 0, blockedUntil: 0 } };
    }
    current = path.read(result.old, nowSeconds);
  }
  return { refusedUntil: nowSeconds + 1 };
}

/**
 * Gives back an attempt reserved with `reserveWithWait`, when nothing was reserved since: the
 * count and the wait as they stood before it, or with `clear` (a success) both back to 0.
 * Otherwise only this attempt is taken off (never below 0), and the waits of the attempts since
 * stand.
 */
export async function giveBackWithWait(client: DynamoDBClient, tableName: string, path: WaitCounterPath, reserved: WaitReserved, clear: boolean): Promise<void> {
  const to = clear ? { failures: 0, blockedUntil: 0 } : reserved.before;
  const restored = await conditionalWrite(client, tableName, 'giveBackAttempt', {
    Key: { pk: { S: path.key } },
    UpdateExpression: `SET ${path.failures} = :to, ${path.blockedUntil} = :toBlocked`,
    ConditionExpression: `${path.failures} = :count`,
    ExpressionAttributeNames: path.names,
    ExpressionAttributeValues: { ':to': { N: String(to.failures) }, ':toBlocked': { N: String(to.blockedUntil) }, ':count': { N: String(reserved.count) } },
  });
  if ('written' in restored) return;
  await conditionalWrite(client, tableName, 'giveBackAttempt', {
    Key: { pk: { S: path.key } },
    UpdateExpression: `SET ${path.failures} = ${path.failures} - :one`,
    ConditionExpression: `${path.failures} > :zero`,
    ExpressionAttributeNames: path.names,
    ExpressionAttributeValues: { ':one': { N: '1' }, ':zero': { N: '0' } },
  });
}

/**
 * One conditional UpdateItem: the attributes written, or the item as it was when the condition
 * failed (DynamoDB returns it, and returns nothing for a missing item). Servers that return no
 * copy at all (dynalite) are asked with a consistent read, only where the condition could not
 * have failed on a missing item: so DynamoDB itself is never asked twice, and the functions'
 * roles need no GetItem for it.
 */
async function conditionalWrite(
  client: DynamoDBClient,
  tableName: string,
  operation: string,
  input: Omit<UpdateItemCommandInput, 'TableName' | 'ReturnValuesOnConditionCheckFailure'>,
  /** The condition holds for a missing item: failing, the item was there, and a server that sent no copy of it is asked. */
  holdsWithoutItem = false,
): Promise<{ written: Record<string, AttributeValue> } | { old: Record<string, AttributeValue> | undefined }> {
  // The callers share placeholder maps between expressions; DynamoDB refuses ones an expression leaves unused.
  const expressions = `${input.UpdateExpression ?? ''} ${input.ConditionExpression ?? ''}`;
  const names = referenced(input.ExpressionAttributeNames, expressions);
  const values = referenced(input.ExpressionAttributeValues, expressions);
  try {
    const { Attributes } = await client.send(
      new UpdateItemCommand({ TableName: tableName, ...input, ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    );
    return { written: Attributes ?? {} };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw new StorageUnavailableError(operation, error);
    const old = (error as { Item?: Record<string, AttributeValue> }).Item;
    // DynamoDB sends no copy of a missing item: that is what it means, unless the condition could not fail on one.
    if (old !== undefined || !holdsWithoutItem) return { old };
    try {
      const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: input.Key, ConsistentRead: true }));
      return { old: Item };
    } catch (readError) {
      throw new StorageUnavailableError(operation, readError);
    }
  }
}

/** The placeholders of `map` that `text` uses (`#d` is not used by `#devices`). */
function referenced<T>(map: Record<string, T> | undefined, text: string): Record<string, T> | undefined {
  if (map === undefined) return undefined;
  const used = Object.entries(map).filter(([placeholder]) => new RegExp(`${placeholder}(?![A-Za-z0-9_])`).test(text));
  return used.length === 0 ? undefined : Object.fromEntries(used);
}

