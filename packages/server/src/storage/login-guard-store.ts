import {
  DeleteItemCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { toStoredMfa, type StoredMfa } from './mfa-store.js';
import { toUserRecord, userKey, type UserRecord } from './account-store.js';
import { batchGetByKey } from './batch-get.js';
import { sessionsKey, toAccountSessions, type AccountSessions } from './session-store.js';
import { isConditionalCheckFailed, isThrottled } from './checks.js';
import { StorageRecordInvalidError, StorageUnavailableError } from './errors.js';
import { FAILURE_KEY_PREFIX, MIGRATION_KEY_PREFIX, TTL_ATTRIBUTE, mfaKey } from './table.js';
import { epochSeconds } from '../shared/epoch-seconds.js';

/** Who is logging in, as the keys of what a login reads and writes. */
export interface LoginTarget {
  /** Normalised; the account item's key. */
  email: string;
  /** The email's fingerprint: failures are kept for unknown emails too, so they look alike. */
  accountKey: string;
  /** The grouped source (IPv4 address, IPv6 /64); undefined when the host knows none. */
  sourceKey?: string;
  now: Date;
}

/** Everything a login decides on, read in one request. Expired items read as zero. */
export interface LoginState {
  user?: UserRecord;
  /** Consecutive failures on this email from any source, and when that run is forgotten (epoch s). */
  account: { failures: number; expiresAt: number };
  /** Failures on this email from this source, and until when the next attempt must wait (epoch s). */
  accountSource: { failures: number; blockedUntil: number };
  /** Failed and good logins from this source, on any email, in the current window. */
  source: { failures: number; successes: number; windowEnd: number };
  /** The account's sessions, so a good login can start one without another read. */
  sessions: AccountSessions;
  /**
   * The account's second factors (features/mfa), read with the rest for every login, right or
   * wrong, so a login's reads do not depend on the password and a good one needs no second read.
   */
  factors?: StoredMfa;
  /**
   * With lazy migration: whether the old system is known to be down (its breaker is open), and
   * from when it may be asked again. Absent: closed, or not asked for.
   */
  breaker?: { retryAt: number };
}

/** What a failure writes; the use-case decides the numbers (packages/server/src/features/login/login-guard.ts). */
export interface FailureUpdate {
  /** When the account-wide run is forgotten: the last failure plus the lock period. */
  accountExpiresAt: number;
  /** When this source may try this email again (0: now). */
  blockedUntil: number;
  /** When the (email, source) failures are forgotten. */
  accountSourceExpiresAt: number;
}

const DAY_SECONDS = 86_400;
/** Counter items whose increments this container holds at most (each a few numbers). */
const MAX_HELD_COUNTERS = 1000;

/**
 * One increment of a counter item, as written: ADD `attribute`, SET the others (expiry, waits).
 * Held when DynamoDB throttled the item (LIMITS.md, "Capacity"), and written by `settle`.
 */
interface CounterIncrement {
  attribute: 'failures' | 'count';
  add: number;
  set: Record<string, number>;
}
/** How long a container goes by what it last read of the breaker before it reads it again. */
const BREAKER_READ_EVERY_MS = 1000;
const BREAKER_KEY = `${MIGRATION_KEY_PREFIX}breaker`;

/**
 * The login path's storage: the account, its failure counters and its sessions in one
 * consistent BatchGetItem before the verify, and counter writes only after a failure (or after a success
 * that follows failures). Layout in table.ts.
 */
export class LoginGuardStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    /** The per-source window; the source counter's key depends on it. */
    private readonly windowSeconds: number,
  ) {}

  /**
   * Failure counts DynamoDB throttled (a hot key: one source or one email under a flood), by
   * item, to be added by the next login that touches the item (`settle`): nothing is lost, and
   * until then no login counted there gets a verify.
   */
  private readonly held = new Map<string, CounterIncrement>();

  /** What this container last read or wrote of the breaker, and when (ms). */
  private breakerSeen: { retryAt?: number; atMs: number } | undefined;

  /**
   * `breaker`: also the lazy migration's breaker, in the same request. Every login reading one
   * item would make it the table's hottest key, so a container reads it at most once a second
   * and goes by what it read (or wrote) in between (LIMITS.md, "Capacity").
   */
  async read(target: LoginTarget, options: { breaker?: boolean } = {}): Promise<LoginState> {
    const nowSeconds = epochSeconds(target.now);
    const keys = this.keysOf(target);
    const nowMs = target.now.getTime();
    const readBreaker = options.breaker === true && (this.breakerSeen === undefined || nowMs - this.breakerSeen.atMs >= BREAKER_READ_EVERY_MS || nowMs < this.breakerSeen.atMs);
    const wanted = [...Object.values(keys), readBreaker ? BREAKER_KEY : undefined].filter((key): key is string => key !== undefined);
    const items = await batchGetByKey(this.client, this.tableName, wanted, 'readLoginState');
    if (readBreaker) {
      const item = items.get(BREAKER_KEY);
      const open = item !== undefined && count(item, TTL_ATTRIBUTE) > nowSeconds;
      this.breakerSeen = { ...(open && { retryAt: count(item, 'retryAt') }), atMs: nowMs };
    }
    const breakerRetryAt = options.breaker === true ? this.breakerSeen?.retryAt : undefined;
    const live = (key: string | undefined) => {
      const item = key === undefined ? undefined : items.get(key);
      // TTL deletes late (up to days): an expired item is no item.
      return item !== undefined && count(item, TTL_ATTRIBUTE) > nowSeconds ? item : undefined;
    };
    const userItem = items.get(keys.user);
    const factorsItem = items.get(keys.factors);
    const account = live(keys.account);
    const accountSource = live(keys.accountSource);
    const source = live(keys.source);
    return {
      sessions: toAccountSessions(target.accountKey, items.get(keys.sessions)),
      ...(userItem !== undefined && { user: toUserRecord(userItem) }),
      ...(factorsItem !== undefined && { factors: toStoredMfa(factorsItem) }),
      account: { failures: account ? count(account, 'failures') : 0, expiresAt: account ? count(account, TTL_ATTRIBUTE) : 0 },
      accountSource: {
        failures: accountSource ? count(accountSource, 'failures') : 0,
        blockedUntil: accountSource ? count(accountSource, 'blockedUntil') : 0,
      },
      source: {
        failures: source ? count(source, 'count') : 0,
        successes: source ? count(source, 'successes') : 0,
        windowEnd: windowStart(nowSeconds, this.windowSeconds) + this.windowSeconds,
      },
      ...(breakerRetryAt !== undefined && { breaker: { retryAt: breakerRetryAt } }),
    };
  }

  /**
   * The old system gave no answer: the breaker opens (or stays open) until `retryAt`, and is
   * remembered for a day at most without a question (then it closes by itself).
   */
  async openBreaker(now: Date, retryAt: number): Promise<void> {
    const nowSeconds = epochSeconds(now);
    this.breakerSeen = { retryAt, atMs: now.getTime() };
    await this.update('openBreaker', {
      Key: { pk: { S: BREAKER_KEY } },
      UpdateExpression: 'SET retryAt = :retryAt, openedAt = if_not_exists(openedAt, :now), #expiresAt = :expiresAt',
      ExpressionAttributeNames: { '#expiresAt': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':retryAt': { N: String(retryAt) }, ':now': { N: String(nowSeconds) }, ':expiresAt': { N: String(nowSeconds + DAY_SECONDS) } },
    });
  }

  /** The old system answered again: the breaker closes. */
  async closeBreaker(now: Date): Promise<void> {
    this.breakerSeen = { atMs: now.getTime() };
    try {
      await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: BREAKER_KEY } } }));
    } catch (error) {
      throw new StorageUnavailableError('closeBreaker', error);
    }
  }

  /**
   * One failure more on each counter, in parallel. A counter DynamoDB throttles is held in this
   * container instead (the failure still counts: `settle` adds it), so the answer stays `invalid_credentials`.
   */
  async recordFailure(target: LoginTarget, state: LoginState, update: FailureUpdate): Promise<void> {
    const keys = this.keysOf(target);
    const nowSeconds = epochSeconds(target.now);
    const writes: Promise<unknown>[] = [this.countAccountFailure(keys.account, state, nowSeconds, update.accountExpiresAt)];
    if (keys.accountSource !== undefined) {
      const set = { blockedUntil: update.blockedUntil, [TTL_ATTRIBUTE]: update.accountSourceExpiresAt };
      writes.push(this.addOrHold(keys.accountSource, { attribute: 'failures', add: 1, set }));
    }
    if (keys.source !== undefined) writes.push(this.addOrHold(keys.source, { attribute: 'count', add: 1, set: { [TTL_ATTRIBUTE]: state.source.windowEnd } }));
    await Promise.all(writes);
  }

  /**
   * One failure more from a source, on no account: a passkey login whose credential is unknown
   * (features/passkeys/passkey-login.ts). Counted with the source's failed logins.
   */
  async recordSourceFailure(sourceKey: string | undefined, now: Date): Promise<void> {
    if (sourceKey === undefined) return;
    const start = windowStart(epochSeconds(now), this.windowSeconds);
    await this.addOrHold(`${FAILURE_KEY_PREFIX}src#${sourceKey}#${start}`, { attribute: 'count', add: 1, set: { [TTL_ATTRIBUTE]: start + this.windowSeconds } });
  }

  /**
   * Before a login without a known device is decided: the failures this container holds for its
   * counters (DynamoDB throttled them) are written first and added to what was read. Still
   * throttled: StorageUnavailableError, so the login is `temporarily_unavailable` before any verify, and the
   * flood that heated the key gets no more guesses than were counted. Costs nothing (a Map
   * lookup) while nothing is held.
   */
  async settle(target: LoginTarget, state: LoginState): Promise<LoginState> {
    if (this.held.size === 0) return state;
    const nowSeconds = epochSeconds(target.now);
    for (const [key, increment] of this.held) if ((increment.set[TTL_ATTRIBUTE] ?? 0) <= nowSeconds) this.held.delete(key);
    const keys = this.keysOf(target);
    const settled = { account: { ...state.account }, accountSource: { ...state.accountSource }, source: { ...state.source } };
    for (const key of [keys.account, keys.accountSource, keys.source]) {
      const increment = key === undefined ? undefined : this.held.get(key);
      if (key === undefined || increment === undefined) continue;
      try {
        await this.client.send(new UpdateItemCommand({ TableName: this.tableName, Key: { pk: { S: key } }, ...incrementExpression(increment) }));
      } catch (error) {
        throw new StorageUnavailableError('settleCounters', error);
      }
      this.held.delete(key);
      if (key === keys.account) settled.account.failures += increment.add;
      else if (key === keys.accountSource) {
        settled.accountSource.failures += increment.add;
        settled.accountSource.blockedUntil = Math.max(settled.accountSource.blockedUntil, increment.set.blockedUntil ?? 0);
      } else settled.source.failures += increment.add;
    }
    return { ...state, ...settled };
  }

  /**
   * One good login more from this source in this window, in the item that counts its failures
   * (read with them, so the bound costs no read). Logins with a known device are not counted.
   */
  async recordSuccess(target: LoginTarget, state: LoginState): Promise<void> {
    const key = this.keysOf(target).source;
    if (key === undefined) return;
    await this.update('recordSuccess', {
      Key: { pk: { S: key } },
      UpdateExpression: 'ADD successes :one SET #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
      ExpressionAttributeNames: { '#expiresAt': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':one': { N: '1' }, ':expiresAt': { N: String(state.source.windowEnd) } },
    });
  }

  /**
   * A good login ends the account's run of failures and this source's failures on it. Writes
   * only what there is to clear, so the usual login writes nothing. The per-source counter is
   * kept: one account of their own must not reset a stuffing source's budget.
   */
  async clearFailures(target: LoginTarget, state: LoginState): Promise<void> {
    const keys = this.keysOf(target);
    const deletes = [state.account.failures > 0 ? keys.account : undefined, state.accountSource.failures > 0 ? keys.accountSource : undefined];
    await Promise.all(deletes.filter((key) => key !== undefined).map((key) => this.delete(key)));
  }

  /** After a new password: the account's run of failures ends (from every source it is the same run). */
  async clearAccountFailures(accountKey: string, sourceKey?: string): Promise<void> {
    await Promise.all([
      this.delete(accountFailureKey(accountKey)),
      // And the waits of the source that set the new password: the owner, back from their mailbox.
      ...(sourceKey === undefined ? [] : [this.delete(`${accountFailureKey(accountKey)}#src#${sourceKey}`)]),
    ]);
  }

  private keysOf(target: LoginTarget) {
    const nowSeconds = epochSeconds(target.now);
    const { sourceKey } = target;
    return {
      user: userKey(target.email),
      account: accountFailureKey(target.accountKey),
      accountSource: sourceKey === undefined ? undefined : `${accountFailureKey(target.accountKey)}#src#${sourceKey}`,
      source: sourceKey === undefined ? undefined : `${FAILURE_KEY_PREFIX}src#${sourceKey}#${windowStart(nowSeconds, this.windowSeconds)}`,
      sessions: sessionsKey(target.accountKey),
      factors: mfaKey(target.accountKey),
    };
  }

  /**
   * A run within its period grows atomically (ADD); a forgotten one restarts at 1, on the
   * condition that it is still forgotten (a concurrent failure may have restarted it: then ADD).
   */
  private async countAccountFailure(key: string, state: LoginState, nowSeconds: number, expiresAt: number): Promise<void> {
    const add = () => this.addOrHold(key, { attribute: 'failures', add: 1, set: { [TTL_ATTRIBUTE]: expiresAt } });
    // Held already (the key is hot): add to that, the run has not been forgotten.
    if (state.account.failures > 0 || this.held.has(key)) return add();
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: key } },
          UpdateExpression: 'SET failures = :one, #expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt <= :now',
          ExpressionAttributeNames: { '#expiresAt': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': { N: '1' }, ':expiresAt': { N: String(expiresAt) }, ':now': { N: String(nowSeconds) } },
        }),
      );
    } catch (error) {
      if (isThrottled(error)) return this.hold(key, { attribute: 'failures', add: 1, set: { [TTL_ATTRIBUTE]: expiresAt } });
      if (!isConditionalCheckFailed(error)) throw new StorageUnavailableError('recordFailure', error);
      await add();
    }
  }

  /** The increment written, or held when DynamoDB throttles the item (after the SDK's retries). */
  private async addOrHold(key: string, increment: CounterIncrement): Promise<void> {
    if (this.held.has(key)) return this.hold(key, increment);
    try {
      await this.client.send(new UpdateItemCommand({ TableName: this.tableName, Key: { pk: { S: key } }, ...incrementExpression(increment) }));
    } catch (error) {
      if (!isThrottled(error)) throw new StorageUnavailableError('recordFailure', error);
      this.hold(key, increment);
    }
  }

  private hold(key: string, increment: CounterIncrement): void {
    const held = this.held.get(key);
    if (held === undefined && this.held.size >= MAX_HELD_COUNTERS) throw new StorageUnavailableError('recordFailure', new Error('too many throttled counters held'));
    const set = { ...held?.set };
    for (const [name, value] of Object.entries(increment.set)) set[name] = Math.max(set[name] ?? 0, value);
    this.held.set(key, { attribute: increment.attribute, add: (held?.add ?? 0) + increment.add, set });
  }

  private async update(operation: string, input: Omit<UpdateItemCommandInput, 'TableName'>): Promise<void> {
    try {
      await this.client.send(new UpdateItemCommand({ TableName: this.tableName, ...input }));
    } catch (error) {
      throw new StorageUnavailableError(operation, error);
    }
  }

  private async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: key } } }));
    } catch (error) {
      throw new StorageUnavailableError('clearFailures', error);
    }
  }
}

function incrementExpression(increment: CounterIncrement): Pick<UpdateItemCommandInput, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> {
  const names: Record<string, string> = { '#add': increment.attribute };
  const values: Record<string, AttributeValue> = { ':add': { N: String(increment.add) } };
  const set = Object.entries(increment.set).map(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = { N: String(value) };
    return `#s${i} = :s${i}`;
  });
  return { UpdateExpression: `ADD #add :add${set.length > 0 ? ` SET ${set.join(', ')}` : ''}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

export function accountFailureKey(accountKey: string): string {
  return `${FAILURE_KEY_PREFIX}acct#${accountKey}`;
}

/** Failure items outlive their last failure by at least a day, so slow guessing is still counted. */
export const FAILURE_MEMORY_SECONDS = DAY_SECONDS;

function windowStart(nowSeconds: number, windowSeconds: number): number {
  return nowSeconds - (nowSeconds % windowSeconds);
}

function count(item: Record<string, AttributeValue>, name: string): number {
  const text = item[name]?.N;
  if (text === undefined) return 0;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new StorageRecordInvalidError(`failures.${name}`);
  return value;
}
